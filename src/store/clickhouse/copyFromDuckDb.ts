/**
 * `chainq copy`: moves an embedded DuckDB store into a ClickHouse store
 * (docs/storage.md, "Moving a store to ClickHouse").
 *
 * The copy goes in parts: one per dataset table and partition value (network,
 * or token for venues), one per network of `blocks`, one per other table.
 * Each part is exported by DuckDB as CSV into a temporary file and streamed
 * into ClickHouse; the part is then recorded in `copy_progress`, so a copy
 * that stops resumes at the first part not recorded. A part that was cut off
 * midway is deleted before it is copied again. Coverage goes last: it is
 * what makes rows visible to queries, so a stopped copy never serves a range
 * whose rows are not all there. Row counts per dataset and network are then
 * compared between the two stores.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalog } from '../../catalog/index.ts';
import type { TableDef } from '../../catalog/types.ts';
import { requireDuckDb, type DuckDbStore } from '../duckdb/types.ts';
import type { SqlParams, Store } from '../types.ts';
import { ident as duckIdent } from '../duckdb/render.ts';
import type { ClickHouseStore } from './types.ts';
import { ident } from './render.ts';

export interface CopyPart {
  readonly table: string;
  /** The partition column and its value, or null for the whole table. */
  readonly slice: { readonly column: string; readonly value: string } | null;
}

export interface CopyEvent {
  readonly part: string;
  readonly rows: number;
  readonly skipped: boolean;
}

export interface CountCheck {
  readonly table: string;
  readonly scope: string;
  readonly source: number;
  readonly target: number;
}

export interface CopyReport {
  readonly parts: number;
  readonly copied: number;
  readonly skipped: number;
  readonly rows: number;
  readonly counts: readonly CountCheck[];
  readonly mismatches: readonly CountCheck[];
}

/** Large tables copied by partition value; the rest whole. */
const BLOCKS: TableDef = {
  name: 'blocks',
  columns: [
    { name: 'network', type: 'string' },
    { name: 'number', type: 'int64' },
    { name: 'time', type: 'timestamp' },
    { name: 'hash', type: 'string' },
    { name: 'parent_hash', type: 'string' },
  ],
  orderBy: ['network', 'number'],
};

/** Reference tables whose columns are the same in both engines, copied whole. */
const REFERENCE_TABLES = ['tokens', 'token_cache', 'labels', 'pools', 'prices', 'ingest_files'];
/**
 * What belongs to customers: copied with the store, never with a demo. Export
 * jobs and their partitions are copied as rows (with version 0, so any later
 * change on ClickHouse wins); their files stay where they are.
 */
const CUSTOMER_TABLES = ['label_namespaces', 'user_labels', 'usage_charges', 'export_jobs', 'export_parts'];
/** The operator's own records: copied with the store (verified ranges show in coverage), never with a demo. */
const OPERATOR_TABLES = ['verifications'];

/** `store`: everything (`chainq copy`); `data`: datasets, coverage and reference data only (the demo). */
export type CopyScope = 'store' | 'data';

const partName = (p: CopyPart) => (p.slice ? `${p.table}/${p.slice.value}` : p.table);

function datasetTables(): TableDef[] {
  return [...new Map(catalog.map((e) => [e.table.name, e.table])).values()];
}

async function partsOf(source: DuckDbStore, t: TableDef): Promise<CopyPart[]> {
  const column = t.orderBy[0];
  if (!column) return [{ table: t.name, slice: null }];
  const values = await source.all<{ v: string }>(`SELECT DISTINCT ${duckIdent(column)} AS v FROM ${duckIdent(t.name)} ORDER BY v`);
  return values.map((r) => ({ table: t.name, slice: { column, value: r.v } }));
}

async function copiedParts(target: ClickHouseStore, sourceId: string): Promise<Set<string>> {
  const rows = await target.query<{ part: string }>(`SELECT part FROM ${target.table('copy_progress')} FINAL WHERE source = {source:String}`, { source: sourceId });
  return new Set(rows.map((r) => r.part));
}

/**
 * Streams the rows of a DuckDB SELECT into a ClickHouse table: DuckDB writes
 * them as CSV (NULL as \N, lists as ClickHouse arrays) to a file in `dir`,
 * which ClickHouse reads by column name.
 */
export async function insertFromDuckDb(source: DuckDbStore, select: string, params: SqlParams, target: ClickHouseStore, table: string, dir: string): Promise<void> {
  const file = path.join(dir, `${table}.csv`);
  try {
    await source.run(`COPY (${select}) TO '${file.replaceAll("'", "''")}' (FORMAT csv, HEADER true, NULLSTR '\\N')`, params);
    const settings = { date_time_input_format: 'best_effort', input_format_csv_empty_as_default: 0 } as const;
    // chDB runs in this process, on this machine's files: it reads the file itself. Through the
    // client, its adapter would read the whole body into one string and parse it inside the statement.
    if (target.dataDir !== null) {
      await target.client.command({ query: `INSERT INTO ${target.table(table)} SELECT * FROM file({file:String}, 'CSVWithNames')`, query_params: { file }, clickhouse_settings: settings });
      return;
    }
    await target.client.insert({ table: `${target.database}.${table}`, values: fs.createReadStream(file), format: 'CSVWithNames', clickhouse_settings: settings });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function copyPart(source: DuckDbStore, target: ClickHouseStore, part: CopyPart, columns: readonly SourceColumn[], dir: string): Promise<number> {
  const where = part.slice ? ` WHERE ${duckIdent(part.slice.column)} = $v` : '';
  const params = part.slice ? { v: part.slice.value } : {};
  // A part cut off by an earlier, stopped copy is removed whole before it is written again.
  if (part.slice) {
    const filter = `${ident(part.slice.column)} = {v:String}`;
    const [held] = await target.query<{ n: number }>(`SELECT count() AS n FROM ${target.table(part.table)} WHERE ${filter}`, { v: part.slice.value });
    if (Number(held?.n ?? 0) > 0) await target.command(`DELETE FROM ${target.table(part.table)} WHERE ${filter}`, { v: part.slice.value });
  } else {
    await target.command(`TRUNCATE TABLE ${target.table(part.table)}`);
  }
  await insertFromDuckDb(source, `SELECT ${columns.map(columnText).join(', ')} FROM ${duckIdent(part.table)}${where}`, params, target, part.table, dir);
  const [n] = await source.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${duckIdent(part.table)}${where}`, params);
  return Number(n?.n ?? 0);
}

export interface SourceColumn {
  readonly name: string;
  readonly list: boolean;
}

/** A column as CSV text ClickHouse parses: lists as `['a','b']`, the rest as DuckDB writes them. */
export function columnText(c: SourceColumn): string {
  const name = duckIdent(c.name);
  if (!c.list) return name;
  const quoted = `list_transform(${name}, a -> '''' || replace(replace(a, '\\', '\\\\'), '''', '\\''') || '''')`;
  return `'[' || array_to_string(${quoted}, ',') || ']' AS ${name}`;
}

export async function columnsOf(source: DuckDbStore, table: string): Promise<SourceColumn[]> {
  const rows = await source.all<{ name: string; type: string }>(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = $t ORDER BY ordinal_position`, {
    t: table,
  });
  return rows.map((r) => ({ name: r.name, list: r.type.endsWith('[]') }));
}

/** Keys change shape: entities with a version (docs/storage.md). */
async function copyKeys(source: DuckDbStore, target: ClickHouseStore): Promise<unknown[]> {
  const keys = await source.all<{ id: string; key_hash: string; prefix: string; plan: string; name: string | null; created_at: Date; revoked_at: Date | null }>(
    'SELECT id, key_hash, prefix, plan, name, created_at, revoked_at FROM api_keys',
  );
  await target.command(`TRUNCATE TABLE ${target.table('api_keys')}`);
  await target.insert(
    'api_keys',
    keys.map((k) => ({ ...k, version: String(BigInt(k.created_at.getTime()) * 1000n + (k.revoked_at ? 1n : 0n)) })),
  );
  return keys;
}

/** Coverage and chain state change shape too: one row per dataset and scope, with a version. */
async function copyState(source: DuckDbStore, target: ClickHouseStore, scope: CopyScope): Promise<number> {
  const keys = scope === 'data' ? [] : await copyKeys(source, target);

  const chain = await source.all<{ scope: string; confirmations: number; head: bigint | null; updated_at: Date }>('SELECT scope, confirmations, head, updated_at FROM chain_state');
  await target.command(`TRUNCATE TABLE ${target.table('chain_state')}`);
  await target.insert('chain_state', chain);

  const advanced = await source.all<{ dataset: string; scope: string; advanced_at: Date }>('SELECT dataset, scope, advanced_at FROM coverage_state');
  await target.command(`TRUNCATE TABLE ${target.table('coverage_state')}`);
  await target.insert('coverage_state', advanced);

  // Coverage last: it is what makes the copied rows visible.
  const coverage = await copyCoverage(source, target);
  return keys.length + chain.length + advanced.length + coverage;
}

/** Replaces the target's coverage with the source's, one row per dataset and scope; returns the source's interval count. */
export async function copyCoverage(source: DuckDbStore, target: ClickHouseStore): Promise<number> {
  const coverage = await source.all<{ dataset: string; scope: string; lo: bigint; hi: bigint }>('SELECT dataset, scope, lo, hi FROM coverage ORDER BY dataset, scope, lo');
  const byScope = new Map<string, { dataset: string; scope: string; intervals: { lo: string; hi: string }[] }>();
  for (const c of coverage) {
    const k = `${c.dataset}\u0000${c.scope}`;
    let e = byScope.get(k);
    if (!e) {
      e = { dataset: c.dataset, scope: c.scope, intervals: [] };
      byScope.set(k, e);
    }
    e.intervals.push({ lo: String(c.lo), hi: String(c.hi) });
  }
  await target.command(`TRUNCATE TABLE ${target.table('coverage')}`);
  const version = String(BigInt(Date.now()) * 1000n);
  await target.insert(
    'coverage',
    [...byScope.values()].map((e) => ({ ...e, version })),
  );
  return coverage.length;
}

/** Rows per partition value of every dataset table, in both stores. */
async function compareCounts(source: DuckDbStore, target: ClickHouseStore): Promise<CountCheck[]> {
  const out: CountCheck[] = [];
  for (const t of [...datasetTables(), BLOCKS]) {
    const column = t.orderBy[0]!;
    const src = await source.all<{ v: string; n: bigint }>(`SELECT ${duckIdent(column)} AS v, count(*) AS n FROM ${duckIdent(t.name)} GROUP BY v`);
    const dst = await target.query<{ v: string; n: number }>(`SELECT ${ident(column)} AS v, count() AS n FROM ${target.table(t.name)} GROUP BY v`);
    const got = new Map(dst.map((r) => [r.v, Number(r.n)]));
    const scopes = new Set([...src.map((r) => r.v), ...got.keys()]);
    const want = new Map(src.map((r) => [r.v, Number(r.n)]));
    for (const v of [...scopes].sort()) out.push({ table: t.name, scope: v, source: want.get(v) ?? 0, target: got.get(v) ?? 0 });
  }
  return out;
}

/**
 * Copies `source` into `target`. `sourceId` names the source in the target's
 * progress table (its path), so that a second run resumes.
 */
export async function copyDuckDbToClickHouse(
  from: Store,
  target: ClickHouseStore,
  sourceId: string,
  onPart: (e: CopyEvent) => void = () => undefined,
  scope: CopyScope = 'store',
): Promise<CopyReport> {
  const source = requireDuckDb(from, 'copying into ClickHouse');
  const done = await copiedParts(target, sourceId);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-copy-'));
  let copied = 0;
  let skipped = 0;
  let rows = 0;
  let parts = 0;
  try {
    const work: { part: CopyPart; columns: readonly SourceColumn[] }[] = [];
    for (const t of [...datasetTables(), BLOCKS]) {
      const columns = t.columns.map((c) => ({ name: c.name, list: false }));
      for (const part of await partsOf(source, t)) work.push({ part, columns });
    }
    for (const name of scope === 'store' ? [...REFERENCE_TABLES, ...CUSTOMER_TABLES, ...OPERATOR_TABLES] : REFERENCE_TABLES)
      work.push({ part: { table: name, slice: null }, columns: await columnsOf(source, name) });
    for (const { part, columns } of work) {
      parts++;
      const name = partName(part);
      if (done.has(name)) {
        skipped++;
        onPart({ part: name, rows: 0, skipped: true });
        continue;
      }
      const n = await copyPart(source, target, part, columns, dir);
      await target.insert('copy_progress', [{ source: sourceId, part: name, rows: n, copied_at: new Date() }]);
      copied++;
      rows += n;
      onPart({ part: name, rows: n, skipped: false });
    }
    rows += await copyState(source, target, scope);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const counts = await compareCounts(source, target);
  return { parts, copied, skipped, rows, counts, mismatches: counts.filter((c) => c.source !== c.target) };
}
