/**
 * One watcher per network for every stream of it: polls a cheap fingerprint
 * of the chain the store holds (newest block, rollbacks so far) and wakes the
 * streams waiting on that network when it changes. Streams never poll the
 * store themselves, however many there are; a network nobody waits on is
 * not polled at all.
 */
import { chainMark, type ChainMark } from '../../store/chainLog.ts';
import type { Store } from '../../store/types.ts';

export const DEFAULT_WATCH_MS = 200;

interface Watch {
  mark: ChainMark | null;
  /** Changes seen so far. */
  version: number;
  waiters: Set<() => void>;
  timer: NodeJS.Timeout | null;
}

export interface ChainWatchers {
  /** The count of changes seen on `network`: read it before reading the store, and pass it to `changed`. */
  version(network: string): number;
  /**
   * Resolves once `network`'s chain has changed since `version` was read (at
   * once if it already has), or when `signal` aborts. A change committed
   * between a stream's read and its wait is therefore never slept through.
   */
  changed(network: string, version: number, signal: AbortSignal): Promise<void>;
  /** The newest block the last poll saw, if one did. */
  newest(network: string): number | null;
  close(): void;
}

export function createChainWatchers(store: Store, pollMs = DEFAULT_WATCH_MS, onError: (e: unknown) => void = () => undefined): ChainWatchers {
  const watches = new Map<string, Watch>();
  let closed = false;

  const poll = async (network: string, w: Watch) => {
    w.timer = null;
    if (closed || w.waiters.size === 0) return;
    try {
      const mark = await chainMark(store, network);
      const moved = w.mark !== null && (mark.newest !== w.mark.newest || mark.orphans !== w.mark.orphans);
      w.mark = mark;
      if (moved) {
        w.version++;
        const woken = [...w.waiters];
        w.waiters.clear();
        for (const wake of woken) wake();
      }
    } catch (e) {
      onError(e);
    }
    schedule(network, w);
  };
  const schedule = (network: string, w: Watch) => {
    if (closed || w.timer || w.waiters.size === 0) return;
    w.timer = setTimeout(() => void poll(network, w), pollMs);
    w.timer.unref();
  };

  const watchOf = (network: string): Watch => {
    let w = watches.get(network);
    if (!w) {
      w = { mark: null, version: 0, waiters: new Set(), timer: null };
      watches.set(network, w);
    }
    return w;
  };

  return {
    version: (network) => watchOf(network).version,
    changed(network, version, signal) {
      const watch = watchOf(network);
      return new Promise<void>((resolve) => {
        if (signal.aborted || closed || watch.version !== version) return resolve();
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          watch.waiters.delete(wake);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        watch.waiters.add(wake);
        // The first waiter of an idle network takes its fingerprint now, so that a change right after is not missed.
        if (watch.mark === null && !watch.timer) void poll(network, watch);
        else schedule(network, watch);
      });
    },
    newest: (network) => watches.get(network)?.mark?.newest ?? null,
    close() {
      closed = true;
      for (const w of watches.values()) {
        if (w.timer) clearTimeout(w.timer);
        for (const wake of w.waiters) wake();
        w.waiters.clear();
      }
    },
  };
}
