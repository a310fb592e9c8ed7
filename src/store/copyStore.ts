/**
 * Moving data between engines: `chainq copy` (a DuckDB store into
 * ClickHouse, docs/storage.md) and datasets built where only DuckDB can build
 * them (the demo's generators use DuckDB's range() and random()), then copied.
 */
import { clickHouseOf, createClickHouseStore } from './clickhouse/createClickHouseStore.ts';
import { copyDuckDbToClickHouse, type CopyEvent, type CopyReport } from './clickhouse/copyFromDuckDb.ts';
import { unappliedJournalCharges } from './duckdb/chargeLedger.ts';
import { createDuckDbStore } from './duckdb/createDuckDbStore.ts';
import { clearDatasets } from './maintenance.ts';
import type { StoreTarget } from './target.ts';
import type { Store } from './types.ts';

export type { CopyEvent, CopyReport };

/**
 * Copies the DuckDB store in `fromDir` into the ClickHouse store at `to`, part
 * by part; a second run resumes. Refuses a store whose usage ledger journal
 * holds charges its table does not (a read-only copy would leave them out).
 */
export async function copyIntoClickHouse(fromDir: string, to: Exclude<StoreTarget, { engine: 'duckdb' }>, onPart: (e: CopyEvent) => void): Promise<CopyReport> {
  const unapplied = unappliedJournalCharges(fromDir);
  if (unapplied > 0) {
    throw new Error(
      `${fromDir} has ${unapplied} charges in its usage ledger journal that are not in usage_charges yet (its server stopped without closing the store); a read-only copy would leave them out. Open the store once, for example with \`chainq status --data ${fromDir}\`, which applies them, then copy again`,
    );
  }
  const source = await createDuckDbStore({ dataDir: fromDir, readOnly: true });
  try {
    const target = await createClickHouseStore({ target: to });
    try {
      return await copyDuckDbToClickHouse(source, target, fromDir, onPart);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * Runs `build`, which writes datasets with DuckDB's own SQL, for the store: on
 * the store itself when it is a DuckDB store; else on an in-memory DuckDB
 * store whose datasets then replace the store's (cleared first), rows counted
 * on both sides.
 */
export async function buildDatasets(store: Store, build: (duck: Store) => Promise<void>): Promise<void> {
  const ch = clickHouseOf(store);
  if (!ch) return build(store);
  const built = await createDuckDbStore({ dataDir: null });
  try {
    await clearDatasets(ch);
    await build(built);
    const report = await copyDuckDbToClickHouse(built, ch, `build:${Date.now()}`, undefined, 'data');
    if (report.mismatches.length) throw new Error(`the copy into ClickHouse lost rows: ${JSON.stringify(report.mismatches.slice(0, 3))}`);
  } finally {
    await built.close();
  }
}
