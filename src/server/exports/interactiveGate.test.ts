import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createInteractiveGate, registerInteractiveGate } from './interactiveGate.ts';

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
  it('only the routes marked as running engine queries, once they passed validation, until their response ended', async () => {
    const gate = createInteractiveGate(OPTS);
    const begin = vi.spyOn(gate, 'begin');
    const app = Fastify();
    await app.register(
      async (v1) => {
        registerInteractiveGate(v1, gate);
        v1.get('/evm/erc20/events/transfer', { config: { engine: true }, schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } }, async () => {
          // Counted while it runs.
          expect(gate.inFlight()).toBe(1);
          return 'rows';
        });
        v1.get('/evm/erc20/events/transfer/stream', async () => 'events');
        v1.get('/exports/:id/files/:name', async () => 'file bytes');
        v1.get('/links/:id', async () => 'link bytes');
        v1.get('/protocols', async () => ['erc20']);
      },
      { prefix: '/v1' },
    );
    for (const url of ['/v1/exports/abc/files/part-1-2.csv', '/v1/links/xyz', '/v1/evm/erc20/events/transfer/stream', '/v1/protocols'])
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
    expect(begin).not.toHaveBeenCalled();
    // Refused by validation: it ran nothing.
    expect((await app.inject({ method: 'GET', url: '/v1/evm/erc20/events/transfer?n=x' })).statusCode).toBe(400);
    expect(begin).not.toHaveBeenCalled();
    expect((await app.inject({ method: 'GET', url: '/v1/evm/erc20/events/transfer?n=1' })).statusCode).toBe(200);
    expect(begin).toHaveBeenCalledTimes(1);
    expect(gate.inFlight()).toBe(0);
    await app.close();
  });
});
