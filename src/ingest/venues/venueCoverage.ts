/**
 * Checkpoints of venue data: coverage intervals per endpoint dataset and
 * token, in epoch milliseconds, written with the rows that replace the
 * period's rows. A period is either fully stored and covered, or absent.
 *
 * A unit (a file, an hour, a day) commits in one transaction on DuckDB; on
 * ClickHouse it is written the same way into the scratch store and
 * published (docs/storage.md, "Writes without transactions").
 */
import { clickHouseOf } from '../../store/clickhouse/createClickHouseStore.ts';
import { recordedChecksum as recordedChecksumClickHouse } from '../../store/clickhouse/lookups.ts';
import { publishBatch, timeTable, type ScratchTarget } from '../../store/clickhouse/publish.ts';
import { addCoverage, coveredIntervals, gaps } from '../../store/coverage.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { Store, Tx } from '../../store/types.ts';
import type { IngestHooks } from '../progress.ts';

/** true when every dataset covers [lo, hi] for this token. */
export async function isCovered(store: Store, datasets: readonly string[], token: string, lo: number, hi: number): Promise<boolean> {
  for (const d of datasets) if (gaps(lo, hi, await coveredIntervals(store, d, token)).length > 0) return false;
  return true;
}

/** Deletes the token's rows of `table` with time in [lo, hi]. */
export async function deletePeriod(tx: Tx, table: string, token: string, lo: number, hi: number): Promise<void> {
  await tx.run(`DELETE FROM ${table} WHERE token = $token AND time BETWEEN CAST($lo AS TIMESTAMP) AND CAST($hi AS TIMESTAMP)`, {
    token,
    lo: toSqlTimestamp(lo),
    hi: toSqlTimestamp(hi),
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
  const ch = clickHouseOf(store);
  if (ch) return recordedChecksumClickHouse(ch, source, path);
  const [r] = await store.all<{ sha256: string }>(`SELECT sha256 FROM ingest_files WHERE source = $source AND path = $path`, { source, path });
  return r?.sha256 ?? null;
}

/** One unit of venue ingestion: some tokens' rows of some tables over [lo, hi], replaced together. */
export interface VenueUnit {
  /** Tokens as stored (upper-case). */
  readonly tokens: readonly string[];
  /** Epoch milliseconds, inclusive. */
  readonly lo: number;
  readonly hi: number;
  /** Tables keyed by token and time whose rows the unit replaces. */
  readonly tables: readonly string[];
  /** The coverage datasets of those rows. */
  readonly datasets: readonly string[];
  /** Whether the unit completes [lo, hi] for them (a partial unit stores rows and leaves the range a gap). */
  readonly complete: boolean;
  /** Other tables it adds rows to (ingest_files). */
  readonly extraTables?: readonly string[];
}

/**
 * On ClickHouse, what a unit's write that replaces rows by key (venue_b
 * fills) reads first, into its transaction in the scratch store: the rows
 * the store holds over a wider span, which it then replaces whole, and the
 * newest row per key before that span.
 */
export interface UnitSpan {
  replace(lo: number, hi: number): Promise<void>;
  loadLatest(table: string, keyColumn: string, keys: ReadonlyMap<string, readonly string[]>): Promise<void>;
}

/**
 * Commits one unit: `write` replaces its rows and records its coverage (with
 * `markCovered`) in one transaction. On DuckDB that is a transaction of the
 * store. On ClickHouse it is a transaction of the scratch store, which holds
 * only the unit (`span` lets a write read more), and what it wrote is then
 * published; `span` is null on DuckDB, where the transaction sees everything.
 */
export async function commitUnit<T>(store: Store, unit: VenueUnit, hooks: IngestHooks | undefined, write: (tx: Tx, span: UnitSpan | null) => Promise<T>): Promise<T> {
  const ch = clickHouseOf(store);
  if (!ch) return store.transaction((tx) => write(tx, null));
  let out: { value: T } | null = null;
  await publishBatch(
    ch,
    {
      scopes: unit.tokens,
      lo: unit.lo,
      hi: unit.hi,
      tables: unit.tables.map(timeTable),
      extraTables: unit.extraTables ?? [],
      covers: unit.complete ? unit.datasets : [],
      uncovers: [],
      keeps: unit.complete ? [] : unit.datasets,
      ...(hooks?.duringPublish ? { onStep: hooks.duringPublish } : {}),
    },
    (scratch, ctx) =>
      scratch.transaction(async (tx) => {
        const into: ScratchTarget = tx;
        out = {
          value: await write(tx, {
            replace: (lo, hi) => ctx.replaceSpan(into, lo, hi),
            loadLatest: (table, keyColumn, keys) => ctx.loadLatest(into, table, keyColumn, keys),
          }),
        };
      }),
  );
  if (!out) throw new Error('the unit was published without being written');
  return (out as { value: T }).value;
}
