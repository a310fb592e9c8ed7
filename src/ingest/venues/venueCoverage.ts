/**
 * Checkpoints of venue data: coverage intervals per endpoint dataset and
 * token, in epoch milliseconds, written in the transaction that replaces the
 * period's rows. A period is either fully stored and covered, or absent.
 */
import { addCoverage, coveredIntervals, gaps } from '../../store/coverage.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { Store, Tx } from '../../store/createStore.ts';

/** true when every dataset covers [lo, hi] for this token. */
export async function isCovered(store: Store, datasets: readonly string[], token: string, lo: number, hi: number): Promise<boolean> {
  for (const d of datasets) if (gaps(lo, hi, await coveredIntervals(store, d, token)).length > 0) return false;
  return true;
}

/** Deletes the token's rows of `table` with time in [lo, hi]. */
export async function deletePeriod(tx: Tx, table: string, token: string, lo: number, hi: number): Promise<void> {
  await tx.run(`DELETE FROM ${table} WHERE token = $token AND time BETWEEN CAST($lo AS TIMESTAMP) AND CAST($hi AS TIMESTAMP)`, {
    token, lo: toSqlTimestamp(lo), hi: toSqlTimestamp(hi),
  });
}

export async function markCovered(tx: Tx, datasets: readonly string[], token: string, lo: number, hi: number): Promise<void> {
  for (const d of datasets) await addCoverage(tx, d, token, lo, hi);
}

/** Records which source file (and which version of it) filled a period, so a replaced file can be noticed. */
export async function recordFile(tx: Tx, source: string, path: string, sha256: string, rows: number): Promise<void> {
  await tx.run(`DELETE FROM ingest_files WHERE source = $source AND path = $path`, { source, path });
  await tx.run(`INSERT INTO ingest_files VALUES ($source, $path, $sha256, $rows, now()::TIMESTAMP)`, { source, path, sha256, rows });
}

export async function recordedChecksum(store: Store, source: string, path: string): Promise<string | null> {
  const [r] = await store.all<{ sha256: string }>(`SELECT sha256 FROM ingest_files WHERE source = $source AND path = $path`, { source, path });
  return r?.sha256 ?? null;
}
