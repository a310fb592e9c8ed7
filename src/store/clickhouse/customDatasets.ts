/**
 * Custom dataset declarations on ClickHouse (../customDatasets.ts): a network
 * to ingest again is emptied as a reorg below its first block would be, and
 * the blocks before its first block are published as an ingested batch
 * without rows; the declaration is inserted last, its newest row current.
 */
import { readCustomDeclaration } from '../../catalog/custom/customEndpoints.ts';
import { ttlLookup } from '../lookupCache.ts';
import type { CustomDatasetOperations, CustomDatasetWrite } from '../types.ts';
import { blockTable, publishBatch, rollbackClickHouse } from './publish.ts';
import { clickHouseTableDdl } from './schema.ts';
import { clickHouseTime } from './time.ts';
import type { ClickHouseStore } from './types.ts';

async function save(ch: ClickHouseStore, w: CustomDatasetWrite): Promise<void> {
  for (const e of w.current) for (const ddl of clickHouseTableDdl(e.table, { database: ch.database, cluster: ch.cluster })) await ch.command(ddl);
  const tables = w.all.map((e) => blockTable(e.table.name));
  for (const { network, fromBlock } of w.fresh) {
    // Everything held for the network goes, as in a reorg below its first block.
    await rollbackClickHouse(
      ch,
      network,
      -1,
      w.all.map((e) => e.id),
      tables,
    );
    if (fromBlock === 0) continue;
    // Blocks before from_block, published like an ingested batch with no rows: they become covered.
    await publishBatch(
      ch,
      {
        scopes: [network],
        lo: 0,
        hi: fromBlock - 1,
        tables: w.current.map((e) => blockTable(e.table.name)),
        scratchTables: w.current.map((e) => e.table),
        extraTables: [],
        covers: w.current.map((e) => e.id),
        uncovers: [],
      },
      async () => undefined,
    );
  }
  await ch.insert('custom_datasets', [{ name: w.name, declaration: w.json, declared_at: clickHouseTime(Date.now()) }]);
}

export function clickHouseCustomDatasets(store: () => ClickHouseStore): CustomDatasetOperations {
  return {
    list() {
      const ch = store();
      return ttlLookup(ch.client, 'customDatasets', async () =>
        (
          await ch.query<{ name: string; declaration: string }>(
            `SELECT name, argMax(declaration, declared_at) AS declaration FROM ${ch.table('custom_datasets')} GROUP BY name HAVING declaration != '' ORDER BY name`,
          )
        ).map((r) => readCustomDeclaration(JSON.parse(r.declaration))),
      );
    },
    save: (w) => save(store(), w),
  };
}
