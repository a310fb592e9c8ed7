/**
 * Ingestion into ClickHouse, which has no multi-statement transactions
 * (docs/storage.md, "Writes without transactions").
 *
 * A batch is decoded and written exactly as for DuckDB, but into a scratch
 * DuckDB in this process (so every decoder, including the engine decoders
 * that read the batch's log file with DuckDB, runs unchanged). Then it is
 * published to ClickHouse in an order that keeps readers right at every step:
 *
 * 1. coverage loses the span the batch replaces, where it held it (a
 *    re-ingest): readers stop reading it before its rows change;
 * 2. rows already in ClickHouse in that span are deleted (a re-ingest, or rows
 *    a killed writer inserted but never published);
 * 3. the new rows are inserted;
 * 4. coverage gains [lo, hi] (and gets back the rest of the span): the commit
 *    point. Each coverage change is one row per dataset and scope, all in one
 *    INSERT, which ClickHouse applies whole.
 *
 * The span is the batch's range, [lo, hi] of a network's blocks or of a
 * venue token's time, unless the write widens it (BatchContext.replaceSpan).
 * A writer killed anywhere leaves coverage as it was before the batch or
 * after it, less at most the span; rows outside coverage are never served,
 * and step 2 of the next attempt removes them.
 */
import { recordOrphansClickHouse } from './chainLog.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { TableDef } from '../../catalog/types.ts';
import { gaps, union, type Interval } from '../intervals.ts';
import { tableDdl } from '../schema.ts';
import type { DuckDbStore, Tx } from '../duckdb/types.ts';
import type { PublishStep } from '../types.ts';
import { scratchStore } from './scratch.ts';
import { ident as duckIdent } from '../duckdb/render.ts';
import { moveRows } from './scratchTransfer.ts';
import { clickHouseTime } from './time.ts';
import type { ClickHouseStore, ClickHouseValue } from './types.ts';
import { ident } from './render.ts';

/** A table a batch writes, and how its rows of the batch's span are found. */
export type BatchTable =
  /** A chain table: rows of the network whose block number (in `column`) lies in the span. */
  | { readonly kind: 'blocks'; readonly name: string; readonly column: string }
  /** A venue table: rows of the token whose `time` lies in the span (epoch milliseconds). */
  | { readonly kind: 'times'; readonly name: string };

export const blockTable = (name: string, column = 'block_number'): BatchTable => ({ kind: 'blocks', name, column });
export const timeTable = (name: string): BatchTable => ({ kind: 'times', name });

/** The condition on a table's rows of the batch's scopes in [lo, hi], in ClickHouse SQL. */
function inSpan(t: BatchTable): string {
  return t.kind === 'blocks'
    ? `network IN {scopes:Array(String)} AND ${ident(t.column)} BETWEEN {lo:Int64} AND {hi:Int64}`
    : `token IN {scopes:Array(String)} AND time BETWEEN fromUnixTimestamp64Milli({lo:Int64}, 'UTC') AND fromUnixTimestamp64Milli({hi:Int64}, 'UTC')`;
}

/** The same table's rows outside [lo, hi], in the scratch DuckDB's SQL. */
function outsideSpanScratch(t: BatchTable): string {
  return t.kind === 'blocks' ? `${duckIdent(t.column)} NOT BETWEEN $lo AND $hi` : `time NOT BETWEEN epoch_ms($lo::BIGINT) AND epoch_ms($hi::BIGINT)`;
}

/** Where a loader writes in the scratch store: the write's own transaction, or the store. */
export type ScratchTarget = Pick<Tx, 'run'>;

/**
 * What a batch's write may ask of the publish, besides the scratch store.
 * Both read from ClickHouse into the scratch store through `into`, which is
 * the write's transaction when it has one (rows written on another
 * connection would not be visible inside it).
 */
export interface BatchContext {
  /**
   * For writes that replace rows by key rather than by range (venue_b fills:
   * a fill a node wrote into the next hour's file keeps its own time): copies
   * the rows ClickHouse holds in [lo, hi] for the batch's scopes and tables
   * into the scratch store, so the write finds what a DuckDB store would hold
   * there, and makes the publish replace the whole span from the smallest to
   * the largest bound given (with its coverage withdrawn until the commit).
   */
  replaceSpan(into: ScratchTarget, lo: number, hi: number): Promise<void>;
  /**
   * Copies, for each scope and key, the newest row of `table` (a batch table)
   * before the span into the scratch store: state the write carries on from
   * (venue_b positions start from each wallet's last snapshot). Rows outside
   * the span are left out of the publish. Call after `replaceSpan`.
   */
  loadLatest(into: ScratchTarget, table: string, keyColumn: string, keys: ReadonlyMap<string, readonly string[]>): Promise<void>;
}

export type { PublishStep } from '../types.ts';

export interface PublishBatch {
  /** The scopes the batch writes: its network, or the tokens of a venue unit. */
  readonly scopes: readonly string[];
  /** The range it covers once published: block numbers, or epoch milliseconds for venues. */
  readonly lo: number;
  readonly hi: number;
  /** Tables the batch writes rows of its span to (datasets, blocks, pools). */
  readonly tables: readonly BatchTable[];
  /** Tables whose rows are keyed otherwise and simply added (token metadata, ingested files). */
  readonly extraTables: readonly string[];
  /** Datasets covering [lo, hi] once published. */
  readonly covers: readonly string[];
  /** Datasets that no longer cover [lo, hi] (a re-ingest without what they hold). */
  readonly uncovers: readonly string[];
  /** Datasets whose rows the batch rewrites without changing their coverage (a partial unit): withdrawn while it publishes, as before after. */
  readonly keeps?: readonly string[];
  /** Tables of `tables` the catalog does not declare (operator-defined datasets): created in the scratch store when missing. */
  readonly scratchTables?: readonly TableDef[];
  /** Runs after each step (after each table's insert for 'inserted'); a test throws here to simulate a crash inside a publish. */
  readonly onStep?: (step: PublishStep) => void | Promise<void>;
}

/** Batches of every job of this process go through the one scratch store, one at a time. */
let publishing: Promise<unknown> = Promise.resolve();

interface CoverageEntry {
  readonly dataset: string;
  readonly scope: string;
  readonly intervals: readonly Interval[];
}

interface CoverageNow {
  /** Intervals by dataset and scope (`entryKey`), every pair asked for present. */
  readonly intervals: ReadonlyMap<string, readonly Interval[]>;
  /** The highest version written for these datasets and scopes; the next write goes above it. */
  readonly version: bigint;
}

const entryKey = (dataset: string, scope: string): string => `${dataset}\u0000${scope}`;

/** The current intervals of each dataset of each scope, in one read. */
async function currentCoverage(ch: ClickHouseStore, datasets: readonly string[], scopes: readonly string[]): Promise<CoverageNow> {
  const rows = await ch.query<{ dataset: string; scope: string; intervals: { lo: number; hi: number }[]; version: string }>(
    `SELECT dataset, scope, intervals, toString(version) AS version FROM ${ch.table('coverage')} FINAL
     WHERE has({scopes:Array(String)}, scope) AND has({datasets:Array(String)}, dataset)`,
    { scopes, datasets },
  );
  const intervals = new Map<string, Interval[]>();
  for (const s of scopes) for (const d of datasets) intervals.set(entryKey(d, s), []);
  let version = 0n;
  for (const r of rows) {
    intervals.set(
      entryKey(r.dataset, r.scope),
      r.intervals.map((i) => ({ lo: Number(i.lo), hi: Number(i.hi) })),
    );
    if (BigInt(r.version) > version) version = BigInt(r.version);
  }
  return { intervals, version };
}

/**
 * Writes the coverage of several datasets and scopes: one row each, one
 * INSERT, under a version above every earlier one (microseconds of the clock,
 * or the previous version + 1 when writes come faster than that). Returns
 * the version written.
 */
async function writeCoverage(ch: ClickHouseStore, previous: bigint, next: readonly CoverageEntry[]): Promise<bigint> {
  if (next.length === 0) return previous;
  const now = BigInt(Date.now()) * 1000n;
  const version = now > previous ? now : previous + 1n;
  await ch.insert(
    'coverage',
    next.map((e) => ({ dataset: e.dataset, scope: e.scope, intervals: e.intervals.map((i) => ({ lo: i.lo, hi: i.hi })), version: version.toString() })),
  );
  return version;
}

interface Withdrawn {
  /** Coverage before the withdrawal. */
  readonly before: CoverageNow;
  /** The version the withdrawal wrote (or the one before, when it wrote nothing). */
  readonly version: bigint;
}

/** Coverage without [lo, hi] for the datasets and scopes that held any of it. */
async function withdraw(ch: ClickHouseStore, datasets: readonly string[], scopes: readonly string[], lo: number, hi: number): Promise<Withdrawn> {
  const before = await currentCoverage(ch, datasets, scopes);
  const next: CoverageEntry[] = [];
  for (const scope of scopes) {
    for (const dataset of datasets) {
      const intervals = before.intervals.get(entryKey(dataset, scope))!;
      if (!intervals.some((i) => i.hi >= lo && i.lo <= hi)) continue;
      next.push({ dataset, scope, intervals: intervals.flatMap((i) => gaps(i.lo, i.hi, [{ lo, hi }])) });
    }
  }
  return { before, version: await writeCoverage(ch, before.version, next) };
}

/**
 * The commit point: coverage as it was before the withdrawal, with [lo, hi]
 * added for `covers` and taken out for `uncovers`, in one INSERT. Datasets
 * the withdrawal took a wider span from get the rest of it back.
 */
async function commitCoverage(ch: ClickHouseStore, batch: PublishBatch, span: Interval, withdrawn: Withdrawn): Promise<void> {
  const widened = span.lo !== batch.lo || span.hi !== batch.hi;
  const touched = (intervals: readonly Interval[]) => intervals.some((i) => i.hi >= span.lo && i.lo <= span.hi);
  const next: CoverageEntry[] = [];
  for (const scope of batch.scopes) {
    const before = (dataset: string) => withdrawn.before.intervals.get(entryKey(dataset, scope)) ?? [];
    for (const dataset of batch.covers) next.push({ dataset, scope, intervals: union([...before(dataset), { lo: batch.lo, hi: batch.hi }]) });
    for (const dataset of batch.uncovers) {
      if (widened && touched(before(dataset))) next.push({ dataset, scope, intervals: before(dataset).flatMap((i) => gaps(i.lo, i.hi, [{ lo: batch.lo, hi: batch.hi }])) });
    }
    for (const dataset of batch.keeps ?? []) if (touched(before(dataset))) next.push({ dataset, scope, intervals: before(dataset) });
  }
  await writeCoverage(ch, withdrawn.version, next);
  // When each dataset last gained coverage (GET /v1/coverage): only the covering ones did.
  const advanced = next.filter((e) => batch.covers.includes(e.dataset));
  if (advanced.length)
    await ch.insert(
      'coverage_state',
      advanced.map((e) => ({ dataset: e.dataset, scope: e.scope, advanced_at: new Date() })),
    );
}

/** Deletes the rows of `tables` in the span, only where there are any (one read to find out). */
export async function deleteRange(ch: ClickHouseStore, tables: readonly BatchTable[], scopes: readonly string[], lo: number, hi: number): Promise<void> {
  if (tables.length === 0) return;
  const params = { scopes, lo, hi };
  const counts = await ch.query<{ t: string; n: number }>(tables.map((t) => `SELECT ${quote(t.name)} AS t, count() AS n FROM ${ch.table(t.name)} WHERE ${inSpan(t)}`).join(' UNION ALL '), params);
  for (const c of counts) {
    if (Number(c.n) === 0) continue;
    const t = tables.find((x) => x.name === c.t)!;
    await ch.command(`DELETE FROM ${ch.table(t.name)} WHERE ${inSpan(t)}`, params);
  }
}

const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const duckText = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** What to read from a ClickHouse table into the scratch store: some columns (all when absent), some rows (all when absent). */
interface LoadSpec {
  readonly columns?: readonly string[];
  readonly where?: string;
  readonly params?: Record<string, ClickHouseValue>;
  /** Only the newest row (by `time`) of each value of this column. */
  readonly newestPer?: string;
}

/**
 * Copies rows of a ClickHouse table into the same table of the scratch store
 * (JSON lines, read back with the scratch table's own column types; exact
 * big integers travel as text, which DuckDB casts on insert).
 */
async function loadIntoScratch(ch: ClickHouseStore, scratch: DuckDbStore, into: ScratchTarget, table: string, spec: LoadSpec): Promise<boolean> {
  const all = await scratch.all<{ name: string; type: string }>(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = $t ORDER BY ordinal_position`, {
    t: table,
  });
  const columns = spec.columns ? all.filter((c) => spec.columns!.includes(c.name)) : all;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-load-'));
  try {
    const file = path.join(dir, `${table}.ndjson`);
    const res = await ch.client.exec({
      query:
        `SELECT ${columns.map((c) => ident(c.name)).join(', ')} FROM ${ch.table(table)}${spec.where ? ` WHERE ${spec.where}` : ''}` +
        `${spec.newestPer ? ` ORDER BY time DESC LIMIT 1 BY ${ident(spec.newestPer)}` : ''} FORMAT JSONEachRow`,
      ...(spec.params ? { query_params: spec.params } : {}),
    });
    await pipeline(res.stream, fs.createWriteStream(file));
    if (fs.statSync(file).size === 0) return false;
    const types = columns.map((c) => `${duckText(c.name)}: ${duckText(/BIGNUM|VARINT/.test(c.type) ? 'VARCHAR' : c.type)}`).join(', ');
    await into.run(`INSERT INTO ${duckIdent(table)} BY NAME SELECT * FROM read_json($file, format = 'newline_delimited', columns = {${types}})`, { file });
    return true;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Keys per query when reading rows by key: the keys travel as a query parameter in the request's URL. */
const KEYS_PER_READ = 500;

/**
 * Runs `write` (the DuckDB batch write) on the scratch store, then publishes
 * what it wrote in the order above.
 */
export function publishBatch(ch: ClickHouseStore, batch: PublishBatch, write: (scratch: DuckDbStore, ctx: BatchContext) => Promise<void>): Promise<void> {
  const run = publishing.then(() => publishNow(ch, batch, write));
  publishing = run.catch(() => undefined);
  return run;
}

async function publishNow(ch: ClickHouseStore, batch: PublishBatch, write: (scratch: DuckDbStore, ctx: BatchContext) => Promise<void>): Promise<void> {
  const s = await scratchStore();
  const names = [...batch.tables.map((x) => x.name), ...batch.extraTables];
  for (const t of batch.scratchTables ?? []) await s.run(tableDdl(t));
  for (const t of [...names, 'coverage', 'coverage_state', 'dataset_order']) await s.run(`DELETE FROM ${duckIdent(t)}`);
  const { scopes } = batch;
  let span: Interval = { lo: batch.lo, hi: batch.hi };
  const context = new Set<BatchTable>();
  const tableOf = (name: string) => {
    const t = batch.tables.find((x) => x.name === name);
    if (!t) throw new Error(`${name} is not a table of this batch`);
    return t;
  };
  // The parts of the span read from ClickHouse so far (none: the batch's own range is read only when the span widens).
  let read: Interval[] = [];
  await write(s, {
    async replaceSpan(into, lo, hi) {
      if (context.size) throw new Error('replaceSpan after loadLatest: the context was read before the span it must precede');
      span = { lo: Math.min(span.lo, lo), hi: Math.max(span.hi, hi) };
      for (const part of gaps(span.lo, span.hi, read)) {
        for (const t of batch.tables) await loadIntoScratch(ch, s, into, t.name, { where: inSpan(t), params: { scopes, lo: part.lo, hi: part.hi } });
      }
      read = [span];
    },
    async loadLatest(into, table, keyColumn, keys) {
      const t = tableOf(table);
      if (t.kind !== 'times') throw new Error(`${table}: loadLatest reads venue tables`);
      context.add(t);
      for (const [scope, all] of keys) {
        for (let i = 0; i < all.length; i += KEYS_PER_READ) {
          await loadIntoScratch(ch, s, into, table, {
            where: `token = {scope:String} AND ${ident(keyColumn)} IN {keys:Array(String)} AND time < fromUnixTimestamp64Milli({before:Int64}, 'UTC')`,
            params: { scope, keys: all.slice(i, i + KEYS_PER_READ), before: span.lo },
            newestPer: keyColumn,
          });
        }
      }
    },
  });
  // Rows read as context only (before the span) are not the batch's to publish.
  for (const t of context) await s.run(`DELETE FROM ${duckIdent(t.name)} WHERE ${outsideSpanScratch(t)}`, { lo: span.lo, hi: span.hi });
  const step = async (name: PublishStep) => {
    await batch.onStep?.(name);
  };
  const withdrawn = await withdraw(ch, [...batch.covers, ...batch.uncovers, ...(batch.keeps ?? [])], scopes, span.lo, span.hi);
  await step('uncovered');
  await deleteRange(ch, batch.tables, scopes, span.lo, span.hi);
  await step('deleted');
  for (const t of names) {
    await moveRows(s, ch, t);
    await step('inserted');
  }
  await commitCoverage(ch, batch, span, withdrawn);
}

/** A table a rewrite reads (some of its columns) without rewriting it. */
export interface RewriteInput {
  readonly table: string;
  readonly columns: readonly string[];
}

export interface RewriteOptions {
  /** Tables the write reads besides those it rewrites. */
  readonly inputs?: readonly RewriteInput[];
  /** The write builds its tables from nothing (the prices): their current rows are not read. */
  readonly fresh?: boolean;
}

/**
 * Reference writes (token and label imports, the prices rebuilt from
 * candles) on ClickHouse: the tables' rows, and the columns of `inputs` the
 * write reads, are loaded into the scratch DuckDB, `write` runs there as it
 * would on a DuckDB store, and each table's new contents replace the old in
 * one step (`EXCHANGE TABLES`), so readers see the table before or after,
 * never half of it.
 */
export function rewriteTables<T>(ch: ClickHouseStore, tables: readonly string[], write: (scratch: DuckDbStore) => Promise<T>, opts: RewriteOptions = {}): Promise<T> {
  const run = publishing.then(() => rewriteNow(ch, tables, write, opts));
  publishing = run.catch(() => undefined);
  return run;
}

async function rewriteNow<T>(ch: ClickHouseStore, tables: readonly string[], write: (scratch: DuckDbStore) => Promise<T>, opts: RewriteOptions): Promise<T> {
  const s = await scratchStore();
  const inputs = opts.inputs ?? [];
  // Tables read empty (a new store's seed import): one INSERT fills them whole, with no table to swap in.
  const empty = new Set<string>();
  try {
    for (const t of tables) {
      await s.run(`DELETE FROM ${duckIdent(t)}`);
      if (!opts.fresh && !(await loadIntoScratch(ch, s, s, t, {}))) empty.add(t);
    }
    for (const i of inputs) {
      await s.run(`DELETE FROM ${duckIdent(i.table)}`);
      await loadIntoScratch(ch, s, s, i.table, { columns: i.columns });
    }
    const out = await write(s);
    for (const t of tables) {
      if (empty.has(t)) {
        await moveRows(s, ch, t);
        continue;
      }
      const next = `${t}__next`;
      await ch.command(`DROP TABLE IF EXISTS ${ch.table(next)}`);
      await ch.command(`CREATE TABLE ${ch.table(next)} AS ${ch.table(t)}`);
      await moveRows(s, ch, t, next);
      await ch.command(`EXCHANGE TABLES ${ch.table(t)} AND ${ch.table(next)}`);
      await ch.command(`DROP TABLE ${ch.table(next)}`);
    }
    return out;
  } finally {
    // Inputs can be large (every candle): the scratch store keeps nothing between writes.
    for (const i of inputs) await s.run(`DELETE FROM ${duckIdent(i.table)}`);
  }
}

/** A reorg: coverage above `ancestor` goes first, then the rows. */
export async function rollbackClickHouse(ch: ClickHouseStore, network: string, ancestor: number, datasets: readonly string[], tables: readonly BatchTable[]): Promise<void> {
  const far = Number.MAX_SAFE_INTEGER;
  await withdraw(ch, datasets, [network], ancestor + 1, far);
  // Kept before they go: a crash between the two leaves the log with blocks still stored, which is harmless.
  await recordOrphansClickHouse(ch, network, ancestor);
  await deleteRange(ch, tables, [network], ancestor + 1, far);
}

/** What ingestion of a chain last saw (GET /v1/coverage): one row per scope, the newest wins. */
export async function recordChainStateClickHouse(ch: ClickHouseStore, scope: string, state: { confirmations: number; head: number | null }): Promise<void> {
  await ch.insert('chain_state', [{ scope, confirmations: state.confirmations, head: state.head, updated_at: clickHouseTime(Date.now()) }]);
}
