/**
 * The scratch DuckDB of a process that writes to ClickHouse: the store's
 * schema, in memory, where batches are decoded and written as for DuckDB
 * before they are published (publish.ts), and where ingestion reads its
 * files. Opened on first use, closed when the last ClickHouse store of the
 * process closes (it runs a helper process that would keep Node alive).
 */
import { createDuckDbStore } from '../duckdb/createDuckDbStore.ts';
import type { DuckDbStore } from '../duckdb/types.ts';

let scratch: Promise<DuckDbStore> | null = null;
let openStores = 0;

export function scratchStore(): Promise<DuckDbStore> {
  scratch ??= createDuckDbStore({ dataDir: null, threads: 1 });
  return scratch;
}

/** A ClickHouse store opened: the scratch store stays until it closes. */
export function holdScratch(): () => Promise<void> {
  openStores++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--openStores > 0 || !scratch) return;
    const s = scratch;
    scratch = null;
    await (await s).close();
  };
}
