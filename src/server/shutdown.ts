/**
 * Graceful shutdown of `chainq serve` (README "Operating": Shutdown).
 *
 * On SIGTERM or SIGINT:
 * 1. the listener stops accepting connections at once (a new connection is
 *    refused); a request that still arrives on an open keep-alive connection
 *    gets 503 `unavailable` with `Connection: close`;
 * 2. in-flight responses run to their end, for at most the grace period; a
 *    connection left idle by a finished response is closed straight away
 *    (createApp does that while draining), so keep-alive clients do not hold
 *    the process for their idle timeout;
 *    `onBeforeClose` (e.g. stop ingestion at a batch boundary) runs meanwhile;
 * 3. when the grace period is over, the connections still open are destroyed;
 * 4. `close()` releases the rest (meter, store, other listeners), and the
 *    process exits 0 (1 if a step failed).
 *
 * A second signal during the drain ends the grace period at once, unless it is
 * the first one again within `echoMs`: a terminal's Ctrl-C reaches every
 * process of the foreground group, and `npm start` forwards the SIGINT it got
 * too, so the server sees one keypress twice, milliseconds apart. Should the
 * rest still not finish within `stuckMs` of the connections being closed (work
 * that ignores cancellation), the process logs it and exits 1 rather than hang:
 * every batch and charge commits atomically, so nothing half-written is left.
 */
import type { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export interface ShutdownOptions {
  /** The public API app; it must be listening for "refused" to mean anything. */
  readonly app: FastifyInstance;
  /** Runs alongside the drain of in-flight responses; both finish before `close()`. */
  readonly onBeforeClose?: () => Promise<void>;
  /** How long in-flight responses may take to finish before their connections are destroyed. */
  readonly graceMs: number;
  readonly logger: Logger;
  /** Closes what the app used (meter, store, the metrics listener), once no response is in flight. */
  readonly close: () => Promise<void>;
  /** Default SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** How long the rest may take once connections were force-closed. Default 15 s. */
  readonly stuckMs?: number;
  /** The same signal again within this long of the first is that one delivered twice, not a second request. Default 1 s. */
  readonly echoMs?: number;
}

export interface Shutdown {
  /** Starts the shutdown as a signal would (idempotent); resolves when `close()` is done, just before the exit. */
  start(reason: string): Promise<void>;
  /** Removes the signal handlers. */
  uninstall(): void;
}

/** Resolves once `server` no longer listens (app.close() gets there after its preClose hooks). */
async function listenerClosed(server: Server): Promise<void> {
  while (server.listening) await new Promise((r) => setImmediate(r));
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, n) => resolve(err ? -1 : n)));
}

export function installShutdown(opts: ShutdownOptions): Shutdown {
  const { app, logger } = opts;
  const signals = opts.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let running: Promise<void> | null = null;
  let forceClose: (() => void) | null = null;
  const stuckMs = opts.stuckMs ?? 15_000;
  const echoMs = opts.echoMs ?? 1_000;
  let first: { signal: NodeJS.Signals; at: number } | null = null;

  async function run(reason: string): Promise<void> {
    logger.info({ reason, graceSeconds: opts.graceMs / 1000 }, 'shutting down: no new connections; in-flight responses may finish within the grace period');
    const server = app.server;
    let forced = false;
    forceClose = () => {
      if (forced) return;
      forced = true;
      logger.warn('closing the connections still open');
      server.closeAllConnections();
      setTimeout(() => {
        logger.error({ stuckSeconds: stuckMs / 1000 }, 'shutdown did not finish after the connections were closed; exiting');
        exit(1);
      }, stuckMs).unref();
    };
    const grace = setTimeout(() => {
      logger.warn({ graceSeconds: opts.graceMs / 1000 }, 'grace period over');
      forceClose?.();
    }, opts.graceMs);
    let failed = false;
    const step = (what: string) => (err: unknown) => {
      failed = true;
      logger.error({ err }, `shutdown: ${what} failed`);
    };
    try {
      // app.close() stops the listener, waits for every connection, then runs the app's onClose hooks.
      const drained = app.close().catch(step('closing the HTTP server'));
      const stopped = opts.onBeforeClose?.().catch(step('onBeforeClose'));
      await listenerClosed(server);
      logger.info({ connections: await openConnections(server) }, 'no longer accepting connections; waiting for in-flight responses');
      await Promise.all([drained, stopped]);
    } catch (e) {
      step('draining')(e);
    } finally {
      clearTimeout(grace);
    }
    await opts.close().catch(step('closing'));
    logger.info({ forced }, 'stopped');
    exit(failed ? 1 : 0);
  }

  function start(reason: string): Promise<void> {
    running ??= run(reason);
    return running;
  }

  const onSignal = (signal: NodeJS.Signals) => {
    if (first && signal === first.signal && Date.now() - first.at < echoMs) {
      logger.debug({ signal }, 'the same signal again at once: one request to stop, delivered twice');
      return;
    }
    first ??= { signal, at: Date.now() };
    if (running) {
      logger.warn({ signal }, 'second signal: ending the grace period now');
      forceClose?.();
      return;
    }
    void start(signal);
  };
  for (const s of signals) process.on(s, onSignal);

  return {
    start,
    uninstall() {
      for (const s of signals) process.off(s, onSignal);
    },
  };
}
