/** `chainq copy`: a DuckDB store into ClickHouse (docs/storage.md). */
import { unappliedJournalCharges } from '../journalLedger.ts';
import { createDuckDbStore } from '../duckdb/createDuckDbStore.ts';
import type { StoreTarget } from '../target.ts';
import { copyDuckDbToClickHouse, type CopyEvent, type CopyReport } from './copyFromDuckDb.ts';
import { createClickHouseStore } from './createClickHouseStore.ts';

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
