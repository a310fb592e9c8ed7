/**
 * Opening a store: the one place that picks the engine (docs/storage.md).
 * Everything else holds a `Store` (./types.ts) and does not know which engine
 * answers it.
 */
import { createClickHouseStore } from './clickhouse/createClickHouseStore.ts';
import { createDuckDbStore, type DuckDbStoreOptions } from './duckdb/createDuckDbStore.ts';
import type { ExportLaneLimits } from './exportLanes.ts';
import type { StoreTarget } from './target.ts';
import type { DecodeStore, Store } from './types.ts';
import { createDecodeStore } from './duckdb/decodeStore.ts';

// What the CLI needs of one engine in particular, through this module only.
export { StoreLockedError } from './duckdb/createDuckDbStore.ts';
export { unappliedJournalCharges } from './journalLedger.ts';
export { clickHouseSchemaDdl } from './clickhouse/schema.ts';
export { copyIntoClickHouse } from './clickhouse/copyInto.ts';
export type { CopyEvent, CopyReport } from './clickhouse/copyFromDuckDb.ts';

/** How a store opens; the DuckDB-only settings are left alone by ClickHouse. */
export interface OpenStoreOptions {
  readonly readOnly?: boolean;
  /** DuckDB: engine threads. */
  readonly threads?: number;
  /** DuckDB: memory_limit, e.g. '512MB'. */
  readonly memoryLimit?: string;
  /** DuckDB: exports running at once, per lane. */
  readonly exportLanes?: ExportLaneLimits;
  /** DuckDB: high-water mark of a streamed export's buffer, in bytes. */
  readonly streamBufferBytes?: number;
}

/** The store at `target`, on the engine it names. */
export function openStoreAt(target: StoreTarget, opts: OpenStoreOptions = {}): Promise<Store> {
  if (target.engine !== 'duckdb') return createClickHouseStore({ target, ...(opts.readOnly ? { readOnly: true } : {}) });
  return createDuckDbStore({
    dataDir: target.dir,
    ...(opts.threads ? { threads: opts.threads } : {}),
    ...(opts.exportLanes ? { exportLanes: opts.exportLanes } : {}),
    ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
    ...(opts.streamBufferBytes ? { streamBufferBytes: opts.streamBufferBytes } : {}),
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
}

/** An embedded DuckDB store, by directory (null: in memory, as tests and the demo's build use). */
export function createStore(opts: DuckDbStoreOptions): Promise<Store> {
  return createDuckDbStore(opts);
}

/** An in-memory store for rows verification decodes from a node (DecodeStore), whichever engine the verified store runs on. */
export function openDecodeStore(): Promise<DecodeStore> {
  return createDecodeStore();
}
