/** Whole-store operations on ClickHouse (../maintenance.ts). */
import { catalog } from '../../catalog/index.ts';
import { createDuckDbStore } from '../duckdb/createDuckDbStore.ts';
import type { MaintenanceOperations } from '../types.ts';
import { copyDuckDbToClickHouse } from './copyFromDuckDb.ts';
import { parseClickHouseTime } from './time.ts';
import type { ClickHouseStore } from './types.ts';

async function clear(ch: ClickHouseStore): Promise<void> {
  // Coverage first: rows stop being served before they go.
  for (const name of ['coverage', 'coverage_state', 'chain_state']) await ch.command(`TRUNCATE TABLE ${ch.table(name)}`);
  for (const name of [...new Set(catalog.map((e) => e.table.name)), 'blocks']) await ch.command(`TRUNCATE TABLE ${ch.table(name)}`);
}

export function clickHouseMaintenance(store: () => ClickHouseStore): MaintenanceOperations {
  return {
    clear: () => clear(store()),
    async tableStatus(table, scope, hasBlocks) {
      const ch = store();
      const noBlock = 'CAST(NULL AS Nullable(Int64))';
      // ClickHouse hands 64-bit integers and times back as text (times in UTC).
      const rows = await ch.query<{ scope: string; n: number | string; bmin: number | string | null; bmax: number | string | null; tmin: string | null; tmax: string | null }>(
        `SELECT ${scope} AS scope, count(*) AS n,
                ${hasBlocks ? 'min(block_number)' : noBlock} AS bmin, ${hasBlocks ? 'max(block_number)' : noBlock} AS bmax,
                min(time) AS tmin, max(time) AS tmax
         FROM ${ch.table(table)} GROUP BY ALL ORDER BY scope`,
      );
      return rows.map((r) => ({
        scope: r.scope,
        rows: Number(r.n),
        blockMin: r.bmin === null ? null : Number(r.bmin),
        blockMax: r.bmax === null ? null : Number(r.bmax),
        timeMin: parseClickHouseTime(r.tmin),
        timeMax: parseClickHouseTime(r.tmax),
      }));
    },
    // ClickHouse keeps each table sorted by its key itself (merges); there is nothing to rewrite.
    compact: () => Promise.resolve([]),
    // The datasets are built in an in-memory DuckDB store (the demo's generators are DuckDB SQL), then copied.
    async build(build) {
      const ch = store();
      const built = await createDuckDbStore({ dataDir: null });
      try {
        await clear(ch);
        await build(built);
        const report = await copyDuckDbToClickHouse(built, ch, `build:${Date.now()}`, undefined, 'data');
        if (report.mismatches.length) throw new Error(`the copy into ClickHouse lost rows: ${JSON.stringify(report.mismatches.slice(0, 3))}`);
      } finally {
        await built.close();
      }
    },
  };
}
