import Fastify from 'fastify';
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { installShutdown } from './shutdown.ts';

describe('installShutdown', () => {
  it('exits 1 instead of hanging when work still holds the process after the grace period closed the connections', async () => {
    const app = Fastify();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const exits: number[] = [];
    const exited = new Promise<void>((resolve) => {
      const shutdown = installShutdown({
        app,
        logger: pino({ enabled: false }),
        graceMs: 50,
        stuckMs: 200,
        signals: [],
        // Work that ignores cancellation: it never ends.
        onBeforeClose: () => new Promise<void>(() => undefined),
        close: async () => undefined,
        exit: (code) => {
          exits.push(code);
          resolve();
        },
      });
      void shutdown.start('test');
    });
    await exited;
    expect(exits).toEqual([1]);
  });

  it('exits 0 once in-flight work ends within the grace period', async () => {
    const app = Fastify();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const exits: number[] = [];
    let closed = false;
    const shutdown = installShutdown({
      app,
      logger: pino({ enabled: false }),
      graceMs: 5_000,
      stuckMs: 200,
      signals: [],
      onBeforeClose: () => new Promise<void>((r) => setTimeout(r, 50)),
      close: async () => {
        closed = true;
      },
      exit: (code) => {
        exits.push(code);
      },
    });
    await shutdown.start('test');
    expect(closed).toBe(true);
    expect(exits).toEqual([0]);
  });

  /** Starts a shutdown by a real SIGUSR2, sends it again after `againMs` while the drain still runs, and returns the `forced` of its "stopped" line. */
  async function signalledTwice(againMs: number, echoMs: number): Promise<unknown> {
    const app = Fastify();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const lines: { msg?: string; forced?: boolean }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as { msg?: string; forced?: boolean });
        done();
      },
    });
    const exited = new Promise<void>((resolve) => {
      const shutdown = installShutdown({
        app,
        logger: pino(sink),
        graceMs: 5_000,
        echoMs,
        signals: ['SIGUSR2'],
        onBeforeClose: () => new Promise<void>((r) => setTimeout(r, againMs + 300)),
        close: async () => undefined,
        exit: () => {
          shutdown.uninstall();
          resolve();
        },
      });
    });
    process.kill(process.pid, 'SIGUSR2');
    setTimeout(() => process.kill(process.pid, 'SIGUSR2'), againMs);
    await exited;
    return lines.find((l) => l.msg === 'stopped')?.forced;
  }

  it('takes the same signal again at once as the first delivered twice (Ctrl-C under npm start), not as a request to force', async () => {
    expect(await signalledTwice(20, 1_000)).toBe(false);
  });

  it('takes the same signal again after the echo window as a request to end the grace period now', async () => {
    expect(await signalledTwice(200, 50)).toBe(true);
  });
});
