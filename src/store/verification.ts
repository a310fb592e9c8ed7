/**
 * What `chainq verify` asks of the engine: a count and a content hash of the
 * rows of one dataset per block, and the record of each verification.
 *
 * The hash of a block is the MD5 of the texts of its rows, sorted and joined
 * by newlines: it changes with any column of any row, with a row missing or
 * doubled, and not with the order rows were appended in. Each engine writes
 * a row's text its own way, so the rows read from the node are hashed by the
 * same engine as the stored ones: on DuckDB in the in-memory DuckDB they were
 * decoded into (the same function of the same engine), on ClickHouse after
 * being loaded into a temporary table there.
 */
import { randomUUID } from 'node:crypto';
import type { TableDef } from '../catalog/types.ts';
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import { clickHouseTime, parseClickHouseTime } from './clickhouse/time.ts';
import type { ClickHouseStore } from './clickhouse/types.ts';
import { moveRows } from './clickhouse/publish.ts';
import { ident as chIdent } from './clickhouse/render.ts';
import type { Interval } from './coverage.ts';
import type { Store } from './types.ts';
import { ident as duckIdent } from './duckdb/render.ts';
import { requireDuckDb, type DuckDbStore, type Tx } from './duckdb/types.ts';

/** The rows of one dataset in one block, as counted and hashed by the engine. */
export interface BlockDigest {
  readonly rows: number;
  readonly hash: string;
}

/** Digests of the blocks of [lo, hi] that hold rows of the table on `network`, by block number. */
export type BlockDigests = ReadonlyMap<number, BlockDigest>;

/**
 * Digests of several tables in one grouped query: per query the engine costs
 * milliseconds whatever it reads, and a batch of a quiet chain holds few
 * rows in many tables. Answers in the order of `tables`.
 */
async function duckDbDigests(store: DuckDbStore, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> {
  if (tables.length === 0) return [];
  // Every column by name, in the catalog's order: the row's text never depends on the physical table.
  const parts = tables.map(
    (t, k) =>
      `SELECT ${k} AS k, block_number, CAST(row(${t.columns.map((c) => duckIdent(c.name)).join(', ')}) AS VARCHAR) AS r FROM ${duckIdent(t.name)} WHERE network = $network AND block_number BETWEEN $lo AND $hi`,
  );
  const rows = await store.all<{ k: number; block: bigint; n: bigint; h: string }>(
    `SELECT k, block_number AS block, count(*) AS n, md5(string_agg(r, chr(10) ORDER BY r)) AS h
     FROM (${parts.join(' UNION ALL ')})
     GROUP BY k, block_number`,
    { network, lo, hi },
  );
  const out = tables.map(() => new Map<number, BlockDigest>());
  for (const r of rows) out[Number(r.k)]?.set(Number(r.block), { rows: Number(r.n), hash: r.h });
  return out;
}

async function clickHouseDigests(ch: ClickHouseStore, from: string, table: TableDef, network: string, lo: number, hi: number): Promise<BlockDigests> {
  const tuple = table.columns.map((c) => chIdent(c.name)).join(', ');
  const rows = await ch.query<{ block: number | string; n: number | string; h: string }>(
    `SELECT block_number AS block, count() AS n, lower(hex(MD5(arrayStringConcat(arraySort(groupArray(r)), '\\n')))) AS h
     FROM (SELECT block_number, toString(tuple(${tuple})) AS r FROM ${from} WHERE network = {network:String} AND block_number BETWEEN {lo:Int64} AND {hi:Int64})
     GROUP BY block_number`,
    { network, lo, hi },
  );
  return new Map(rows.map((r) => [Number(r.block), { rows: Number(r.n), hash: r.h }]));
}

/** Count and hash, per block, of the rows the store holds for each of `tables` on `network` in blocks [lo, hi], in the order of `tables`. */
export async function storedBlockDigests(store: Store, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> {
  const ch = clickHouseOf(store);
  if (!ch) return duckDbDigests(requireDuckDb(store, 'block digests'), tables, network, lo, hi);
  const out: BlockDigests[] = [];
  for (const t of tables) out.push(await clickHouseDigests(ch, ch.table(t.name), t, network, lo, hi));
  return out;
}

/**
 * The same digests of rows decoded from a node into `decoded` (an in-memory
 * DuckDB store with the store's schema, written by ingestion's own batch
 * writer), computed by the engine of `store`. On ClickHouse the rows are
 * moved out of `decoded` into a temporary table and hashed there.
 */
export async function decodedBlockDigests(store: Store, decoded: Store, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> {
  const ch = clickHouseOf(store);
  if (!ch) return duckDbDigests(requireDuckDb(decoded, 'decoded block digests'), tables, network, lo, hi);
  const out: BlockDigests[] = [];
  for (const table of tables) {
    const name = `verify_${randomUUID().replaceAll('-', '')}`;
    await ch.command(`CREATE TABLE ${ch.table(name)} AS ${ch.table(table.name)} ENGINE = Memory`);
    try {
      await moveRows(requireDuckDb(decoded, 'decoded block digests'), ch, table.name, name);
      out.push(await clickHouseDigests(ch, ch.table(name), table, network, lo, hi));
    } finally {
      await ch.command(`DROP TABLE IF EXISTS ${ch.table(name)}`);
    }
  }
  return out;
}

/**
 * Empties the in-memory store rows were decoded into, between two batches:
 * the tables written, their blocks and coverage, in one transaction. The
 * store holds nothing else of the network, so nothing is kept; a rollback
 * of every EVM table would cost dozens of statements per batch instead.
 */
export async function clearDecoded(decoded: Store, tables: readonly TableDef[]): Promise<void> {
  await requireDuckDb(decoded, 'clearing decoded rows').transaction(async (tx) => {
    for (const name of new Set(tables.map((t) => t.name))) await tx.run(`DELETE FROM ${duckIdent(name)}`);
    await tx.run('DELETE FROM blocks');
    await tx.run('DELETE FROM coverage');
  });
}

/** Blocks where the store and the node disagree on one dataset. */
export interface VerificationRecord {
  readonly network: string;
  readonly dataset: string;
  readonly verifiedAt: Date;
  /** The node's URL without credentials. */
  readonly node: string;
  /** A random sample of blocks rather than whole ranges. */
  readonly sampled: boolean;
  /** The blocks compared, as inclusive intervals. */
  readonly ranges: readonly Interval[];
  readonly blocks: number;
  readonly result: 'ok' | 'mismatch';
  /** The blocks whose rows differed, in order. */
  readonly mismatchBlocks: readonly number[];
}

/** Records one verification run's outcome, one record per dataset. */
export async function recordVerifications(store: Store, records: readonly VerificationRecord[]): Promise<void> {
  if (records.length === 0) return;
  const row = (r: VerificationRecord) => ({
    network: r.network,
    dataset: r.dataset,
    node: r.node,
    sampled: r.sampled,
    ranges: JSON.stringify(r.ranges.map((i) => [i.lo, i.hi])),
    blocks: r.blocks,
    result: r.result,
    mismatches: r.mismatchBlocks.length,
    mismatch_blocks: JSON.stringify(r.mismatchBlocks),
  });
  const ch = clickHouseOf(store);
  if (ch) {
    await ch.insert(
      'verifications',
      records.map((r) => ({ ...row(r), verified_at: clickHouseTime(r.verifiedAt.getTime()) })),
    );
    return;
  }
  await requireDuckDb(store, 'recording verifications').transaction(async (tx) => {
    await tx.append(
      'verifications',
      records.map((r) => {
        const v = row(r);
        return [v.network, v.dataset, r.verifiedAt, v.node, v.sampled, v.ranges, v.blocks, v.result, v.mismatches, v.mismatch_blocks];
      }),
    );
  });
}

interface StoredVerification {
  network: string;
  dataset: string;
  verified_at: Date | string;
  node: string;
  sampled: boolean;
  ranges: string;
  blocks: bigint | number | string;
  result: string;
  mismatch_blocks: string;
}

const intervals = (json: string): Interval[] => (JSON.parse(json) as [number, number][]).map(([lo, hi]) => ({ lo, hi }));

/** Every recorded verification of the given datasets (null: of every dataset), oldest first. */
export async function verificationRecords(store: Store, datasets: readonly string[] | null): Promise<VerificationRecord[]> {
  if (datasets?.length === 0) return [];
  const ch = clickHouseOf(store);
  const rows = ch
    ? await ch.query<StoredVerification>(
        `SELECT network, dataset, toString(verified_at) AS verified_at, node, sampled, ranges, blocks, result, mismatch_blocks
         FROM ${ch.table('verifications')}${datasets ? ' WHERE dataset IN {datasets:Array(String)}' : ''} ORDER BY verified_at, dataset, network`,
        datasets ? { datasets } : {},
      )
    : // A handful of rows per run: filtered here rather than binding a list.
      (
        await requireDuckDb(store, 'reading verifications').all<StoredVerification>(
          `SELECT network, dataset, verified_at, node, sampled, ranges, blocks, result, mismatch_blocks FROM verifications ORDER BY verified_at, dataset, network`,
        )
      ).filter((r) => !datasets || datasets.includes(r.dataset));
  return rows.map((r) => ({
    network: r.network,
    dataset: r.dataset,
    verifiedAt: r.verified_at instanceof Date ? r.verified_at : (parseClickHouseTime(r.verified_at) ?? new Date(0)),
    node: r.node,
    sampled: Boolean(r.sampled),
    ranges: intervals(r.ranges),
    blocks: Number(r.blocks),
    result: r.result === 'ok' ? 'ok' : 'mismatch',
    mismatchBlocks: JSON.parse(r.mismatch_blocks) as number[],
  }));
}

/**
 * Puts `rows` (columns in table order) in `table` of the in-memory store that
 * verification decodes into, in place of whatever an earlier batch left there.
 */
export async function replaceDecodedRows(decoded: Store, table: TableDef, rows: Parameters<Tx['append']>[1]): Promise<void> {
  await requireDuckDb(decoded, 'replacing decoded rows').transaction(async (tx) => {
    await tx.run(`DELETE FROM ${duckIdent(table.name)}`);
    if (rows.length) await tx.append(table.name, rows);
  });
}
