/**
 * What every stream of a server shares: the per-network chain watchers, the
 * look at the store of the streams woken by one change, the shared batch
 * queries, the per-key count of open streams (the plan's
 * `concurrent_streams`) and the open streams themselves, which a shutdown
 * ends cleanly (each client then resumes from its last cursor).
 */
import type { FastifyInstance } from 'fastify';
import { createConcurrencyGate, type ConcurrencyGate } from '../../metering/concurrency.ts';
import type { Store } from '../../store/types.ts';
import { createBatchRows, type BatchRows } from './batchRows.ts';
import { createChainViews, type ChainViews } from './chainViews.ts';
import { createChainWatchers, DEFAULT_WATCH_MS, type ChainWatchers } from './chainWatcher.ts';

/** How long a quiet stream goes without a progress event, by default. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface StreamOptions {
  /** How often a quiet stream gets a progress event; 15 s by default. */
  readonly heartbeatMs?: number;
  /** How often each followed network's chain is polled for a commit or rollback; 200 ms by default. */
  readonly watchMs?: number;
}

export interface StreamHub {
  readonly store: Store;
  readonly watchers: ChainWatchers;
  /** The snapshot and chain reads shared by the streams woken by the same change. */
  readonly views: ChainViews;
  readonly rows: BatchRows;
  readonly gate: ConcurrencyGate;
  readonly heartbeatMs: number;
  /** Registers an open stream; the returned function forgets it. */
  open(stop: AbortController): () => void;
}

export function createStreamHub(app: FastifyInstance, store: Store, opts: StreamOptions = {}): StreamHub {
  const streams = new Set<AbortController>();
  const watchers = createChainWatchers(store, opts.watchMs ?? DEFAULT_WATCH_MS, (e) => app.log.warn({ err: e }, 'stream watcher could not read the chain'));
  // A stream never ends by itself: on shutdown each one is ended at its next event boundary, before the drain waits on it.
  app.addHook('preClose', (done) => {
    for (const s of streams) s.abort();
    watchers.close();
    done();
  });
  return {
    store,
    watchers,
    views: createChainViews(store),
    rows: createBatchRows(),
    gate: createConcurrencyGate(),
    heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    open(stop) {
      streams.add(stop);
      return () => streams.delete(stop);
    },
  };
}
