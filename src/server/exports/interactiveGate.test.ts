import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createInteractiveGate, registerInteractiveGate, type InteractiveGate } from './interactiveGate.ts';

const OPTS = { holdMs: 50, maxWaitMs: 150, runMs: 50, pollMs: 5, now: () => Date.now() };

/** Whether `p` has resolved once the timers have advanced by `ms`. */
async function resolvedAfter(p: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(ms);
  return done;
}

describe('the interactive gate of exports', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives an export its turn at once when no request ran lately', async () => {
    const gate = createInteractiveGate(OPTS);
    expect(await resolvedAfter(gate.turn(), 0)).toBe(true);
  });

  it('holds an export while a request is in flight and for holdMs after it ended', async () => {
    const gate = createInteractiveGate({ ...OPTS, maxWaitMs: 1000 });
    const end = gate.begin();
    const turn = gate.turn();
    expect(await resolvedAfter(turn, 100)).toBe(false);
    end();
    expect(await resolvedAfter(turn, 30)).toBe(false);
    expect(await resolvedAfter(turn, 30)).toBe(true);
  });

  it('under steady traffic waits at most maxWaitMs, then writes for runMs without waiting, then waits again', async () => {
    const gate = createInteractiveGate(OPTS);
    const end = gate.begin();
    const first = gate.turn();
    expect(await resolvedAfter(first, 140)).toBe(false);
    expect(await resolvedAfter(first, 20)).toBe(true);
    // Its run: every turn at once.
    expect(await resolvedAfter(gate.turn(), 0)).toBe(true);
    await vi.advanceTimersByTimeAsync(30);
    expect(await resolvedAfter(gate.turn(), 0)).toBe(true);
    await vi.advanceTimersByTimeAsync(20);
    // The run is over and the request still runs: it waits again.
    expect(await resolvedAfter(gate.turn(), 100)).toBe(false);
    end();
  });

  it('counts an ended request once, however often its end is reported', async () => {
    const gate = createInteractiveGate(OPTS);
    const a = gate.begin();
    const b = gate.begin();
    a();
    a();
    // b still runs.
    expect(await resolvedAfter(gate.turn(), 100)).toBe(false);
    b();
  });
});

describe('which requests hold exports back', () => {
  it('every request to the API but the export routes and live streams', async () => {
    const begun: string[] = [];
    const gate: InteractiveGate = {
      begin: () => () => undefined,
      turn: () => Promise.resolve(),
    };
    const app = Fastify();
    await app.register(
      async (v1) => {
        registerInteractiveGate(v1, {
          ...gate,
          begin() {
            begun.push('begin');
            return () => undefined;
          },
        });
        v1.get('/evm/erc20/events/transfer', async () => 'rows');
        v1.get('/evm/erc20/events/transfer/stream', async () => 'events');
        v1.get('/exports/:id', async () => 'status');
        v1.post('/exports', async () => 'queued');
      },
      { prefix: '/v1' },
    );
    for (const [method, url] of [
      ['GET', '/v1/exports/abc'],
      ['POST', '/v1/exports'],
      ['GET', '/v1/evm/erc20/events/transfer/stream'],
    ] as const)
      expect((await app.inject({ method, url })).statusCode).toBe(200);
    expect(begun).toEqual([]);
    expect((await app.inject({ method: 'GET', url: '/v1/evm/erc20/events/transfer' })).statusCode).toBe(200);
    expect(begun).toEqual(['begin']);
    await app.close();
  });
});
