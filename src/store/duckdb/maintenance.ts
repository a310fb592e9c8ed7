/** Whole-store operations on DuckDB (../maintenance.ts): each a transaction of the store. */
import { catalog } from '../../catalog/index.ts';
import type { DemoPlan } from '../demoPlan.ts';
import type { MaintenanceOperations, Store } from '../types.ts';
import type { DuckDbStatements } from './types.ts';
import { generateDuckDbDemo } from './demo/generate.ts';

type Statements = Pick<DuckDbStatements, 'all' | 'transaction'>;

async function compact(db: Statements): Promise<string[]> {
  const flagged = new Set((await db.all<{ dataset: string }>(`SELECT DISTINCT dataset FROM dataset_order WHERE unordered`)).map((r) => r.dataset));
  const tables = new Map(catalog.filter((e) => flagged.has(e.id)).map((e) => [e.table.name, e.table]));
  for (const table of tables.values()) {
    const ids = catalog.filter((e) => e.table === table).map((e) => e.id);
    await db.transaction(async (tx) => {
      await tx.run(`CREATE TEMP TABLE compact_sorted AS SELECT * FROM ${table.name} ORDER BY ${table.orderBy.map((k) => `"${k}"`).join(', ')}`);
      await tx.run(`DELETE FROM ${table.name}`);
      await tx.run(`INSERT INTO ${table.name} SELECT * FROM compact_sorted`);
      await tx.run(`DROP TABLE compact_sorted`);
      for (const id of ids) await tx.run(`DELETE FROM dataset_order WHERE dataset = $id`, { id });
    });
  }
  return [...tables.keys()];
}

/** `self`: the store (or snapshot) these operations belong to, which builds and demos write through. */
export function duckDbMaintenance(db: Statements, self: () => Store): MaintenanceOperations {
  return {
    clear: () =>
      db.transaction(async (tx) => {
        for (const name of new Set(catalog.map((e) => e.table.name))) await tx.run(`DELETE FROM ${name}`);
        await tx.run('DELETE FROM coverage');
        await tx.run('DELETE FROM coverage_state');
        await tx.run('DELETE FROM chain_state');
        await tx.run('DELETE FROM dataset_order');
        await tx.run('DELETE FROM blocks');
      }),
    async tableStatus(table, scope, hasBlocks) {
      const rows = await db.all<{ scope: string; n: bigint; bmin: bigint | null; bmax: bigint | null; tmin: Date | null; tmax: Date | null }>(
        `SELECT ${scope} AS scope, count(*) AS n,
                ${hasBlocks ? 'min(block_number)' : 'NULL::BIGINT'} AS bmin, ${hasBlocks ? 'max(block_number)' : 'NULL::BIGINT'} AS bmax,
                min(time) AS tmin, max(time) AS tmax
         FROM ${table} GROUP BY ALL ORDER BY scope`,
      );
      return rows.map((r) => ({
        scope: r.scope,
        rows: Number(r.n),
        blockMin: r.bmin === null ? null : Number(r.bmin),
        blockMax: r.bmax === null ? null : Number(r.bmax),
        timeMin: r.tmin,
        timeMax: r.tmax,
      }));
    },
    compact: () => compact(db),
    build: (build) => build(self()),
    writeDemo: (plan: DemoPlan) => generateDuckDbDemo(self(), plan),
  };
}
