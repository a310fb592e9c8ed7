/** Whole-store operations for operators: clearing datasets and describing what the store holds. */
import { catalog } from '../catalog/index.ts';
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import { parseClickHouseTime } from './clickhouse/time.ts';
import { duckDbOf, requireDuckDb } from './duckdb/types.ts';
import type { Store } from './types.ts';

export async function clearDatasets(store: Store): Promise<void> {
  const ch = clickHouseOf(store);
  if (ch) {
    // Coverage first: rows stop being served before they go.
    for (const name of ['coverage', 'coverage_state', 'chain_state']) await ch.command(`TRUNCATE TABLE ${ch.table(name)}`);
    for (const name of [...new Set(catalog.map((e) => e.table.name)), 'blocks']) await ch.command(`TRUNCATE TABLE ${ch.table(name)}`);
    return;
  }
  await requireDuckDb(store, 'clearing datasets').transaction(async (tx) => {
    for (const name of new Set(catalog.map((e) => e.table.name))) await tx.run(`DELETE FROM ${name}`);
    await tx.run('DELETE FROM coverage');
    await tx.run('DELETE FROM coverage_state');
    await tx.run('DELETE FROM chain_state');
    await tx.run('DELETE FROM dataset_order');
    await tx.run('DELETE FROM blocks');
  });
}

export interface DatasetStatus {
  dataset: string;
  network: string | null;
  token?: string;
  rows: number;
  block_min: number | null;
  block_max: number | null;
  time_min: string | null;
  time_max: string | null;
}

/** A time as ISO text; ClickHouse hands its times back as UTC text. */
const iso = (d: Date | string | null) => {
  const date = typeof d === 'string' ? parseClickHouseTime(d) : d;
  return date ? date.toISOString().replace('.000Z', 'Z') : null;
};

/** One entry per dataset and network (or token, for venues) that holds rows. */
export async function datasetStatus(store: Store): Promise<DatasetStatus[]> {
  const out: DatasetStatus[] = [];
  for (const e of catalog) {
    const cols = new Set(e.table.columns.map((c) => c.name));
    const byToken = e.family === 'exchange';
    const scope = byToken ? 'token' : 'network';
    if (!cols.has(scope)) continue;
    const hasBlocks = cols.has('block_number');
    const ch = clickHouseOf(store);
    const noBlock = ch ? 'CAST(NULL AS Nullable(Int64))' : 'NULL::BIGINT';
    type ScopeRow = { scope: string; n: bigint; bmin: bigint | null; bmax: bigint | null; tmin: Date | string | null; tmax: Date | string | null };
    const sql = `SELECT ${scope} AS scope, count(*) AS n,
              ${hasBlocks ? 'min(block_number)' : noBlock} AS bmin, ${hasBlocks ? 'max(block_number)' : noBlock} AS bmax,
              min(time) AS tmin, max(time) AS tmax
       FROM ${ch ? ch.table(e.table.name) : e.table.name} GROUP BY ALL ORDER BY scope`;
    const rows = ch ? await ch.query<ScopeRow>(sql) : await requireDuckDb(store, 'dataset status').all<ScopeRow>(sql);
    for (const r of rows) {
      const chainNetwork = e.family === 'btc' ? null : r.scope;
      out.push({
        dataset: e.id,
        network: byToken ? null : chainNetwork,
        ...(byToken ? { token: r.scope } : {}),
        rows: Number(r.n),
        block_min: r.bmin === null ? null : Number(r.bmin),
        block_max: r.bmax === null ? null : Number(r.bmax),
        time_min: iso(r.tmin),
        time_max: iso(r.tmax),
      });
    }
  }
  return out;
}

/**
 * Rewrites every table holding rows appended out of order, sorted by its
 * catalog order, so that queries over it stream without sorting again.
 * Returns the tables rewritten.
 */
export async function compactDatasets(store: Store): Promise<string[]> {
  // ClickHouse keeps each table sorted by its key itself (merges); there is nothing to rewrite.
  const duck = duckDbOf(store);
  if (!duck) return [];
  const flagged = new Set((await duck.all<{ dataset: string }>(`SELECT DISTINCT dataset FROM dataset_order WHERE unordered`)).map((r) => r.dataset));
  const tables = new Map(catalog.filter((e) => flagged.has(e.id)).map((e) => [e.table.name, e.table]));
  for (const table of tables.values()) {
    const ids = catalog.filter((e) => e.table === table).map((e) => e.id);
    await duck.transaction(async (tx) => {
      await tx.run(`CREATE TEMP TABLE compact_sorted AS SELECT * FROM ${table.name} ORDER BY ${table.orderBy.map((k) => `"${k}"`).join(', ')}`);
      await tx.run(`DELETE FROM ${table.name}`);
      await tx.run(`INSERT INTO ${table.name} SELECT * FROM compact_sorted`);
      await tx.run(`DROP TABLE compact_sorted`);
      for (const id of ids) await tx.run(`DELETE FROM dataset_order WHERE dataset = $id`, { id });
    });
  }
  return [...tables.keys()];
}
