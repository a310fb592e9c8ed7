/**
 * Exports give way to interactive requests (docs/api.md, "Exports"): while a
 * request to the API is in flight, or one ended less than `holdMs` ago (a
 * client's next request usually follows at once), an export waits before it
 * writes its next piece, which stops the engine's work on it. It waits at
 * most `maxWaitMs` at a time and then writes for `runMs`, so that steady
 * traffic slows an export down but never stops it.
 */
import type { FastifyInstance } from 'fastify';
import type { ExportThrottle } from '../../store/exportLanes.ts';

export interface InteractiveGateOptions {
  readonly holdMs: number;
  readonly maxWaitMs: number;
  readonly runMs: number;
  /** How often a waiting export looks again. */
  readonly pollMs: number;
  readonly now?: () => number;
}

/**
 * The shipped timing: with steady interactive traffic an export writes at
 * least a quarter of the time (bench/results/exports.json).
 */
export const INTERACTIVE_GATE: InteractiveGateOptions = { holdMs: 50, maxWaitMs: 150, runMs: 50, pollMs: 5 };

export interface InteractiveGate extends ExportThrottle {
  /** An interactive request began; call the answer when it has ended. */
  begin(): () => void;
  /** Interactive requests in flight now. */
  inFlight(): number;
}

export function createInteractiveGate(opts: InteractiveGateOptions): InteractiveGate {
  const now = opts.now ?? Date.now;
  let inFlight = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  let runUntil = Number.NEGATIVE_INFINITY;
  const busy = (t: number) => inFlight > 0 || t - lastEnd < opts.holdMs;
  return {
    begin() {
      inFlight++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        inFlight--;
        lastEnd = now();
      };
    },
    inFlight: () => inFlight,
    turn() {
      const t = now();
      if (t < runUntil || !busy(t)) return Promise.resolve();
      return new Promise((resolve) => {
        const look = () => {
          const at = now();
          if (busy(at) && at - t < opts.maxWaitMs) {
            setTimeout(look, opts.pollMs);
            return;
          }
          runUntil = at + opts.runMs;
          resolve();
        };
        setTimeout(look, opts.pollMs);
      });
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers with queries it runs on the engine: while one is answered, exports give way. */
    engine?: boolean;
  }
}

/**
 * Counts the requests that run queries on the engine, the routes marked
 * `engine` (data queries, cost estimates, store-backed listings, labels,
 * usage), from the moment they pass authentication, metering and validation
 * until their response has ended. Downloads of files already written (export
 * files, link downloads), export status and manifests, live streams (held
 * open for as long as a client follows) and answers from the catalog alone
 * leave the engine to the export.
 */
export function registerInteractiveGate(v1: FastifyInstance, gate: InteractiveGate): void {
  v1.addHook('preHandler', (request, reply, done) => {
    // A client already gone would never close again: it is not counted.
    if (request.routeOptions.config.engine === true && !request.raw.socket?.destroyed) reply.raw.once('close', gate.begin());
    done();
  });
}
