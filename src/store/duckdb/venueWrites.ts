/**
 * Venue units written in DuckDB SQL, inside one transaction: the store's own
 * on DuckDB, the scratch store's on ClickHouse (which then publishes what the
 * unit wrote, ../clickhouse/venues.ts). A unit replaces a token's rows of a
 * period and records their coverage with them, so a period is either fully
 * stored and covered, or absent.
 */
import { catalog } from '../../catalog/index.ts';
import { venueBFills, venueBPositions, venueBRawTrades } from '../../catalog/venues/venue_b.ts';
import type { PublishStep, VenueCsvImport, VenueFillsImport, VenueOperations, VenueRowsImport } from '../types.ts';
import type { Tx } from './types.ts';
import { addCoverage } from './coverageWrites.ts';
import { venueCsvSelect } from './venueCsv.ts';

/** A TIMESTAMP value (UTC) for epoch milliseconds, to bind as a parameter. */
const toSqlTimestamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

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
  readonly onStep?: ((step: PublishStep) => void | Promise<void>) | undefined;
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
 * Runs `write` in one transaction that commits the unit: `span` is null
 * where the transaction sees the whole store (DuckDB).
 */
export type CommitUnit = <T>(unit: VenueUnit, write: (tx: Tx, span: UnitSpan | null) => Promise<T>) => Promise<T>;

/** Venue operations over an engine's way of committing a unit and of reading a recorded checksum. */
export function venueOperations(commit: CommitUnit, recordedChecksum: VenueOperations['recordedChecksum']): VenueOperations {
  return {
    recordedChecksum,
    importCsv: (f) =>
      commit({ tokens: [f.token], lo: f.lo, hi: f.hi, tables: [f.table], datasets: f.datasets, complete: true, extraTables: ['ingest_files'], onStep: f.onStep }, (tx) => importCsv(tx, f)),
    replaceRows: (r) => commit({ tokens: [r.token], lo: r.lo, hi: r.hi, tables: [r.table], datasets: r.datasets, complete: r.complete, onStep: r.onStep }, (tx) => replaceRows(tx, r)),
    importFills: (f) =>
      commit({ tokens: f.coins.map((c) => c.toUpperCase()), lo: f.lo, hi: f.hi, tables: FILL_TABLES, datasets: f.datasets, complete: true, onStep: f.onStep }, (tx, span) => importFills(tx, f, span)),
  };
}

/** Deletes the token's rows of `table` with time in [lo, hi]. */
async function deletePeriod(tx: Tx, table: string, token: string, lo: number, hi: number): Promise<void> {
  await tx.run(`DELETE FROM ${table} WHERE token = $token AND time BETWEEN CAST($lo AS TIMESTAMP) AND CAST($hi AS TIMESTAMP)`, {
    token,
    lo: toSqlTimestamp(lo),
    hi: toSqlTimestamp(hi),
  });
}

async function markCovered(tx: Tx, datasets: readonly string[], token: string, lo: number, hi: number): Promise<void> {
  for (const d of datasets) await addCoverage(tx, d, token, lo, hi);
}

async function replaceRows(tx: Tx, r: VenueRowsImport): Promise<void> {
  await deletePeriod(tx, r.table, r.token, r.lo, r.hi);
  await tx.append(r.table, r.rows);
  if (r.complete) await markCovered(tx, r.datasets, r.token, r.lo, r.hi);
}

/** Records which source file (and which version of it) filled a period, so a replaced file can be noticed. */
async function recordFile(tx: Tx, source: string, path: string, sha256: string, rows: number): Promise<void> {
  await tx.run(`DELETE FROM ingest_files WHERE source = $source AND path = $path`, { source, path });
  await tx.run(`INSERT INTO ingest_files VALUES ($source, $path, $sha256, $rows, now()::TIMESTAMP)`, { source, path, sha256, rows });
}

const tableColumns = (table: string): string[] => {
  const t = catalog.find((e) => e.table.name === table)?.table;
  if (!t) throw new Error(`no catalog table ${table}`);
  return t.columns.map((c) => c.name);
};

/** Replaces the period's rows with the file's, and records coverage and the file's checksum. */
async function importCsv(tx: Tx, f: VenueCsvImport): Promise<number> {
  const names = tableColumns(f.table)
    .map((c) => `"${c}"`)
    .join(', ');
  const select = await venueCsvSelect(tx, f);
  await deletePeriod(tx, f.table, f.token, f.lo, f.hi);
  // Rows outside the file's own period belong to a neighbouring file: keeping them would store them twice.
  const inserted = await tx.all<{ Count: bigint }>(
    `INSERT INTO ${f.table}
       SELECT * FROM (${select}) AS t(${names})
       WHERE time BETWEEN CAST($lo AS TIMESTAMP) AND CAST($hi AS TIMESTAMP)
       ORDER BY ${f.orderBy.join(', ')}`,
    { file: f.file, token: f.token, lo: toSqlTimestamp(f.lo), hi: toSqlTimestamp(f.hi) },
  );
  const rows = Number(inserted[0]?.Count ?? 0);
  await markCovered(tx, f.datasets, f.token, f.lo, f.hi);
  await recordFile(tx, f.source, f.path, f.sha256, rows);
  return rows;
}

/** The tables one hour of fills replaces rows of. */
const FILL_TABLES = [venueBFills.table.name, venueBRawTrades.table.name, venueBPositions.table.name];

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Loads the hour's fills of the coins into a staging table and replaces, per
 * token, its fills, trades and position snapshots, then covers the hour.
 * Rows are keyed by what identifies them (trade id and wallet), not by time,
 * so a fill stored under a neighbouring hour's file is replaced, not doubled.
 */
async function importFills(tx: Tx, f: VenueFillsImport, span: UnitSpan | null): Promise<number> {
  await stageHour(tx, f.file, f.coins);
  // On ClickHouse the transaction sees only this hour: read first what the store holds where the staged
  // fills fall (their times may reach into the hour before), and each wallet's last position before that.
  if (span) await readAround(tx, span);
  let rows = 0;
  for (const coin of f.coins) {
    const token = coin.toUpperCase();
    const p = { token };
    await tx.run(`DELETE FROM venue_b_fills WHERE token = $token AND (tid, wallet) IN (SELECT tid, wallet FROM vb_stage WHERE token = $token)`, p);
    const [fills] = await tx.all<{ Count: bigint }>(
      `INSERT INTO venue_b_fills
        SELECT token, time, wallet, price, size, side, dir, start_position, closed_pnl, fee, fee_token, crossed, tid, oid, hash, block_number
        FROM vb_stage WHERE token = $token ORDER BY time, tid, wallet`,
      p,
    );
    rows += Number(fills?.Count ?? 0);
    // One trade per trade id: the taker's fill (crossed), whose side is the aggressor's.
    await tx.run(`DELETE FROM venue_b_trades WHERE token = $token AND tid IN (SELECT tid FROM vb_stage WHERE token = $token)`, p);
    const [trades] = await tx.all<{ Count: bigint }>(
      `INSERT INTO venue_b_trades
        SELECT token, time, tid, price, size, side = 'B', hash FROM vb_stage WHERE token = $token AND crossed
        QUALIFY row_number() OVER (PARTITION BY tid ORDER BY block_number, seq) = 1 ORDER BY time, tid`,
      p,
    );
    rows += Number(trades?.Count ?? 0);
    rows += await replacePositions(tx, token, f);
    await markCovered(tx, f.datasets, token, f.lo, f.hi);
  }
  await tx.run(`DROP TABLE vb_stage`);
  return rows;
}

/** The hour file's fills of `coins`, one row per fill, in the temporary table vb_stage. */
async function stageHour(tx: Tx, file: string, coins: readonly string[]): Promise<void> {
  await tx.run(
    `CREATE TEMP TABLE vb_stage AS
    SELECT upper(f->>'coin') AS token, epoch_ms((f->>'time')::BIGINT) AS time, ev->>'$[0]' AS wallet,
           (f->>'px')::DOUBLE AS price, (f->>'sz')::DOUBLE AS size, f->>'side' AS side, f->>'dir' AS dir,
           (f->>'startPosition')::DOUBLE AS start_position, (f->>'closedPnl')::DOUBLE AS closed_pnl,
           (f->>'fee')::DOUBLE AS fee, f->>'feeToken' AS fee_token, (f->>'crossed')::BOOLEAN AS crossed,
           (f->>'tid')::BIGINT AS tid, (f->>'oid')::BIGINT AS oid, f->>'hash' AS hash, block_number, seq
    FROM (
      SELECT b.block_number, e.seq, e.ev, e.ev->'$[1]' AS f
      FROM read_json($file, format = 'newline_delimited', columns = {block_number: 'BIGINT', events: 'JSON[]'},
                     maximum_object_size = 536870912) b,
           LATERAL (SELECT unnest(b.events) AS ev, generate_subscripts(b.events, 1) AS seq) e
    ) WHERE f->>'coin' IN (${coins.map(quote).join(', ')})`,
    { file },
  );
}

/**
 * What the keyed replacement reads beyond the staged rows, brought into the
 * scratch store: the rows held over the span from the earliest staged fill
 * (or the hour's start) to the hour's end, which the publish then replaces
 * whole, and each staged wallet's newest snapshot before it.
 */
async function readAround(tx: Tx, span: UnitSpan): Promise<void> {
  const [edges] = await tx.all<{ lo: bigint | null; hi: bigint | null }>(`SELECT epoch_ms(min(time)) AS lo, epoch_ms(max(time)) AS hi FROM vb_stage`);
  if (edges?.lo == null || edges.hi == null) return;
  await span.replace(Number(edges.lo), Number(edges.hi));
  const wallets = await tx.all<{ token: string; wallet: string }>(`SELECT DISTINCT token, wallet FROM vb_stage ORDER BY token, wallet`);
  const byToken = new Map<string, string[]>();
  for (const w of wallets) byToken.set(w.token, [...(byToken.get(w.token) ?? []), w.wallet]);
  await span.loadLatest(venueBPositions.table.name, 'wallet', byToken);
}

async function replacePositions(tx: Tx, token: string, f: VenueFillsImport): Promise<number> {
  const p = { token };
  await tx.run(`DELETE FROM venue_b_positions WHERE token = $token AND (wallet, time) IN (SELECT wallet, time FROM vb_stage WHERE token = $token)`, p);
  // Each wallet's latest snapshot before its first fill of this hour.
  const prior = await tx.all<{ wallet: string; side: string; size: number; avg_entry: number | null }>(
    `
    SELECT p.wallet, p.side, p.size, p.avg_entry
    FROM venue_b_positions p JOIN (SELECT wallet, min(time) AS t0 FROM vb_stage WHERE token = $token GROUP BY wallet) s
      ON p.wallet = s.wallet AND p.time < s.t0
    WHERE p.token = $token
    QUALIFY row_number() OVER (PARTITION BY p.wallet ORDER BY p.time DESC) = 1`,
    p,
  );
  const fills = await tx.all<{ time: Date; wallet: string; price: number; size: number; side: string; start_position: number; closed_pnl: number }>(
    `
    SELECT time, wallet, price, size, side, start_position, closed_pnl FROM vb_stage WHERE token = $token ORDER BY block_number, seq`,
    p,
  );
  const snapshots = f.positions(
    token,
    prior.map((r) => ({ wallet: r.wallet, side: r.side, size: r.size, avgEntry: r.avg_entry })),
    fills.map((r) => ({
      timeMs: r.time.getTime(),
      wallet: r.wallet,
      price: r.price,
      size: r.size,
      side: r.side,
      startPosition: r.start_position,
      closedPnl: r.closed_pnl,
    })),
  );
  if (snapshots.length) await tx.append(venueBPositions.table.name, snapshots);
  return snapshots.length;
}
