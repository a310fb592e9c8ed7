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

/**
 * Counts every request to the API as interactive except the export routes
 * themselves and live streams (held open for as long as a client follows).
 */
export function registerInteractiveGate(v1: FastifyInstance, gate: InteractiveGate): void {
  v1.addHook('onRequest', (request, reply, done) => {
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/v1/exports') && !url.endsWith('/stream')) reply.raw.once('close', gate.begin());
    done();
  });
}
