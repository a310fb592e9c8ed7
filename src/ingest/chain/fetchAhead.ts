/**
 * Batches fetched ahead and handed back strictly in block order: the shape of
 * every chain adapter's backfill. Fetching overlaps with committing, at most
 * `window` batches are in flight, and commits never run out of order.
 */
import type { Interval } from '../../store/coverage.ts';

export interface FetchAhead<T> {
  /** The next batch in order (its fetch's error, if it failed), or null once every range was fetched. */
  take(): Promise<T | null>;
  /** Waits for every fetch still in flight (none may outlive the run) and returns their outcomes. */
  settleAll(): Promise<PromiseSettledResult<T>[]>;
}

/** `next` hands out the next range to fetch (it may size it from what was fetched so far), or null when there is none. */
export function fetchAhead<T>(next: () => Interval | null, fetch: (lo: number, hi: number) => Promise<T>, window: number): FetchAhead<T> {
  const inFlight: Promise<T>[] = [];
  const fill = () => {
    while (inFlight.length < Math.max(1, window)) {
      const r = next();
      if (!r) return;
      const p = fetch(r.lo, r.hi);
      p.catch(() => undefined); // awaited in order by take(), or settled by settleAll(); never unhandled
      inFlight.push(p);
    }
  };
  return {
    async take() {
      fill();
      const p = inFlight.shift();
      if (!p) return null;
      try {
        return await p;
      } finally {
        fill();
      }
    },
    settleAll: () => Promise.allSettled(inFlight.splice(0)),
  };
}
