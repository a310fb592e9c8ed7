/**
 * Ingestion into ClickHouse, which has no multi-statement transactions
 * (docs/storage.md, "Writes without transactions").
 *
 * A batch is decoded and written exactly as for DuckDB, but into a scratch
 * DuckDB in this process (so every decoder, including the engine decoders
 * that read the batch's log file with DuckDB, runs unchanged). Then it is
 * published to ClickHouse in an order that keeps readers right at every step:
 *
 * 1. coverage loses [lo, hi] where it held it (a re-ingest): readers stop
 *    reading the range before its rows change;
 * 2. rows already in ClickHouse for [lo, hi] are deleted (a re-ingest, or rows
 *    a killed writer inserted but never published);
 * 3. the new rows are inserted;
 * 4. coverage gains [lo, hi]: the commit point. Each coverage change is one
 *    row per dataset in one INSERT, which ClickHouse applies whole.
 *
 * A writer killed anywhere leaves coverage as it was before the batch or
 * after it; rows outside coverage are never served, and step 2 of the next
 * attempt removes them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gaps, union, type Interval } from '../coverage.ts';
import type { Store } from '../createStore.ts';
import { scratchStore } from './scratch.ts';
import { ident as duckIdent } from '../duckdb/render.ts';
import { columnsOf, columnText, insertFromDuckDb } from './copyFromDuckDb.ts';
import { clickHouseTime, type ClickHouseStore } from './createClickHouseStore.ts';
import { ident } from './render.ts';

/** A table the batch writes, and the column holding the block number. */
export interface BatchTable {
  readonly name: string;
  readonly blockColumn: string;
}

export interface BatchRange {
  readonly network: string;
  readonly lo: number;
  readonly hi: number;
}

/** Batches of every job of this process go through the one scratch store, one at a time. */
let publishing: Promise<unknown> = Promise.resolve();

/**
 * The DuckDB that reads ingestion's files (a batch's log file) for `store`:
 * the store itself, or this process's scratch store beside a ClickHouse one.
 */
export function fileReaderFor(store: Store): Promise<Store> {
  return store.engine === 'clickhouse' ? scratchStore() : Promise.resolve(store);
}

interface CoverageNow {
  readonly intervals: Map<string, Interval[]>;
  /** The highest version written for the scope's datasets; the next write goes above it. */
  readonly version: bigint;
}

/** The current intervals of each dataset of `scope`, in one read. */
async function currentCoverage(ch: ClickHouseStore, datasets: readonly string[], scope: string): Promise<CoverageNow> {
  const rows = await ch.query<{ dataset: string; intervals: { lo: number; hi: number }[]; version: string }>(
    `SELECT dataset, intervals, toString(version) AS version FROM ${ch.table('coverage')} FINAL
     WHERE scope = {scope:String} AND has({datasets:Array(String)}, dataset)`,
    { scope, datasets },
  );
  const intervals = new Map<string, Interval[]>(datasets.map((d) => [d, []]));
  let version = 0n;
  for (const r of rows) {
    intervals.set(r.dataset, r.intervals.map((i) => ({ lo: Number(i.lo), hi: Number(i.hi) })));
    if (BigInt(r.version) > version) version = BigInt(r.version);
  }
  return { intervals, version };
}

/**
 * Writes the coverage of several datasets of one scope: one row each, one
 * INSERT, under a version above every earlier one (microseconds of the clock,
 * or the previous version + 1 when writes come faster than that).
 */
async function writeCoverage(ch: ClickHouseStore, scope: string, previous: bigint, next: ReadonlyMap<string, readonly Interval[]>, advanced: boolean): Promise<void> {
  if (next.size === 0) return;
  const now = BigInt(Date.now()) * 1000n;
  const version = (now > previous ? now : previous + 1n).toString();
  await ch.insert('coverage', [...next].map(([dataset, intervals]) => ({ dataset, scope, intervals: intervals.map((i) => ({ lo: i.lo, hi: i.hi })), version })));
  if (advanced) await ch.insert('coverage_state', [...next.keys()].map((dataset) => ({ dataset, scope, advanced_at: new Date() })));
}

/** Coverage without [lo, hi], for the datasets that held any of it. */
export async function uncover(ch: ClickHouseStore, datasets: readonly string[], scope: string, lo: number, hi: number): Promise<void> {
  const current = await currentCoverage(ch, datasets, scope);
  const next = new Map<string, Interval[]>();
  for (const [dataset, intervals] of current.intervals) {
    if (!intervals.some((i) => i.hi >= lo && i.lo <= hi)) continue;
    next.set(dataset, intervals.flatMap((i) => gaps(i.lo, i.hi, [{ lo, hi }])));
  }
  await writeCoverage(ch, scope, current.version, next, false);
}

/** Coverage with [lo, hi] added (touching intervals merge). */
export async function cover(ch: ClickHouseStore, datasets: readonly string[], scope: string, lo: number, hi: number): Promise<void> {
  const current = await currentCoverage(ch, datasets, scope);
  await writeCoverage(ch, scope, current.version, new Map([...current.intervals].map(([d, intervals]) => [d, union([...intervals, { lo, hi }])])), true);
}

/** Deletes the rows of `tables` in the block range, only where there are any (one read to find out). */
export async function deleteRange(ch: ClickHouseStore, tables: readonly BatchTable[], network: string, lo: number, hi: number): Promise<void> {
  if (tables.length === 0) return;
  const where = (t: BatchTable) => `network = {network:String} AND ${ident(t.blockColumn)} BETWEEN {lo:Int64} AND {hi:Int64}`;
  const counts = await ch.query<{ t: string; n: number }>(
    tables.map((t) => `SELECT ${quote(t.name)} AS t, count() AS n FROM ${ch.table(t.name)} WHERE ${where(t)}`).join(' UNION ALL '),
    { network, lo, hi },
  );
  for (const c of counts) {
    if (Number(c.n) === 0) continue;
    const t = tables.find((x) => x.name === c.t)!;
    await ch.command(`DELETE FROM ${ch.table(t.name)} WHERE ${where(t)}`, { network, lo, hi });
  }
}

const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** Moves every row the scratch store holds in `table` to ClickHouse (CSV, as `chainq copy` does), then empties it there. */
export async function moveRows(source: Store, ch: ClickHouseStore, table: string, into: string = table): Promise<number> {
  const [held] = await source.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${duckIdent(table)}`);
  const n = Number(held?.n ?? 0);
  if (n === 0) return 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-publish-'));
  try {
    const columns = (await columnsOf(source, table)).map(columnText).join(', ');
    await insertFromDuckDb(source, `SELECT ${columns} FROM ${duckIdent(table)}`, {}, ch, into, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await source.run(`DELETE FROM ${duckIdent(table)}`);
  return n;
}

export interface PublishBatch extends BatchRange {
  /** Tables the batch writes rows of [lo, hi] to (datasets, blocks, pools). */
  readonly tables: readonly BatchTable[];
  /** Tables whose rows are keyed otherwise and simply added (token metadata). */
  readonly extraTables: readonly string[];
  /** Datasets covering [lo, hi] once published. */
  readonly covers: readonly string[];
  /** Datasets that no longer cover [lo, hi] (a re-ingest without what they hold). */
  readonly uncovers: readonly string[];
}

/**
 * Runs `write` (the DuckDB batch write) on the scratch store, then publishes
 * what it wrote in the order above.
 */
export function publishBatch(ch: ClickHouseStore, batch: PublishBatch, write: (scratch: Store) => Promise<void>): Promise<void> {
  const run = publishing.then(() => publishNow(ch, batch, write));
  publishing = run.catch(() => undefined);
  return run;
}

async function publishNow(ch: ClickHouseStore, batch: PublishBatch, write: (scratch: Store) => Promise<void>): Promise<void> {
  const s = await scratchStore();
  for (const t of [...batch.tables.map((x) => x.name), ...batch.extraTables, 'coverage', 'coverage_state', 'dataset_order']) {
    await s.run(`DELETE FROM ${duckIdent(t)}`);
  }
  await write(s);
  const { network, lo, hi } = batch;
  await uncover(ch, [...batch.covers, ...batch.uncovers], network, lo, hi);
  await deleteRange(ch, batch.tables, network, lo, hi);
  for (const t of [...batch.tables.map((x) => x.name), ...batch.extraTables]) await moveRows(s, ch, t);
  await cover(ch, batch.covers, network, lo, hi);
}

/**
 * Reference writes (token and label imports) on ClickHouse: the tables'
 * rows are loaded into the scratch DuckDB, `write` runs there as it would on
 * a DuckDB store, and each table's new contents replace the old in one step
 * (`EXCHANGE TABLES`), so readers see the registry before or after, never
 * half of it.
 */
export function rewriteTables<T>(ch: ClickHouseStore, tables: readonly string[], write: (scratch: Store) => Promise<T>): Promise<T> {
  const run = publishing.then(() => rewriteNow(ch, tables, write));
  publishing = run.catch(() => undefined);
  return run;
}

async function rewriteNow<T>(ch: ClickHouseStore, tables: readonly string[], write: (scratch: Store) => Promise<T>): Promise<T> {
  const s = await scratchStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-rewrite-'));
  try {
    for (const t of tables) {
      await s.run(`DELETE FROM ${duckIdent(t)}`);
      const file = path.join(dir, `${t}.ndjson`);
      const res = await ch.client.exec({ query: `SELECT * FROM ${ch.table(t)} FORMAT JSONEachRow` });
      await pipeline(res.stream, fs.createWriteStream(file));
      if (fs.statSync(file).size > 0) await s.run(`INSERT INTO ${duckIdent(t)} BY NAME SELECT * FROM read_json($file, format = 'newline_delimited')`, { file });
    }
    const out = await write(s);
    for (const t of tables) {
      const next = `${t}__next`;
      await ch.command(`DROP TABLE IF EXISTS ${ch.table(next)}`);
      await ch.command(`CREATE TABLE ${ch.table(next)} AS ${ch.table(t)}`);
      await moveRows(s, ch, t, next);
      await ch.command(`EXCHANGE TABLES ${ch.table(t)} AND ${ch.table(next)}`);
      await ch.command(`DROP TABLE ${ch.table(next)}`);
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A reorg: coverage above `ancestor` goes first, then the rows. */
export async function rollbackClickHouse(ch: ClickHouseStore, network: string, ancestor: number, datasets: readonly string[], tables: readonly BatchTable[]): Promise<void> {
  const far = Number.MAX_SAFE_INTEGER;
  await uncover(ch, datasets, network, ancestor + 1, far);
  await deleteRange(ch, tables, network, ancestor + 1, far);
}

/** What ingestion of a chain last saw (GET /v1/coverage): one row per scope, the newest wins. */
export async function recordChainStateClickHouse(ch: ClickHouseStore, scope: string, state: { confirmations: number; head: number | null }): Promise<void> {
  await ch.insert('chain_state', [{ scope, confirmations: state.confirmations, head: state.head, updated_at: clickHouseTime(Date.now()) }]);
}
