import Fastify from 'fastify';
import pino from 'pino';
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
});
