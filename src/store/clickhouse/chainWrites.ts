/**
 * Ingestion's chain writes on ClickHouse, which has no multi-statement
 * transactions: a batch is written as for DuckDB into the scratch store, then
 * published in the order of ./publish.ts that keeps readers right at every
 * step; a rollback withdraws coverage above the ancestor before deleting rows.
 */
import { ChainBreakError } from '../chainBreak.ts';
import type { ChainOperations } from '../types.ts';
import { blockTable, publishBatch, rollbackClickHouse, type BatchTable } from './publish.ts';
import { scratchStore } from './scratch.ts';
import type { ClickHouseStore } from './types.ts';

/** The tables holding a network's rows by block that a write touches: the headers when asked, `tables`, and pools when asked. */
function chainTables(tables: readonly string[], parts: { blocks: boolean; pools: boolean }): BatchTable[] {
  return [...(parts.blocks ? [blockTable('blocks', 'number')] : []), ...[...new Set(tables)].map((name) => blockTable(name)), ...(parts.pools ? [blockTable('pools', 'created_block')] : [])];
}

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseChainWrites(store: () => ClickHouseStore): ChainOperations {
  return {
    async publish(batch) {
      const ch = store();
      const { parentHash, ...rest } = batch;
      // Checked before publishing: the scratch store holds no earlier block.
      if (parentHash !== undefined) {
        const [prev] = await ch.query<{ hash: string }>(`SELECT hash FROM ${ch.table('blocks')} FINAL WHERE network = {network:String} AND number = {n:Int64}`, {
          network: batch.network,
          n: batch.lo - 1,
        });
        if (prev && prev.hash !== parentHash) throw new ChainBreakError(batch.network, batch.lo);
      }
      await publishBatch(
        ch,
        {
          scopes: [batch.network],
          lo: batch.lo,
          hi: batch.hi,
          tables: chainTables(
            batch.tables.map((t) => t.table),
            { blocks: batch.blocks !== undefined, pools: batch.pools !== undefined },
          ),
          scratchTables: batch.definedTables ?? [],
          extraTables: batch.tokenCache ? ['token_cache'] : [],
          covers: batch.covers,
          uncovers: batch.uncovers,
        },
        // The scratch store holds nothing of the range: no table needs its delete.
        (scratch) => scratch.chain.publish({ ...rest, tables: batch.tables.map((t) => ({ ...t, fresh: true })) }),
      );
    },
    // The scratch DuckDB, which decodes the batch at its publish, reads the file.
    scanLogFile: async (file, spec) => (await scratchStore()).chain.scanLogFile(file, spec),
    async rollback(r) {
      await rollbackClickHouse(
        store(),
        r.network,
        r.ancestor,
        [...r.datasets.map((d) => d.id), ...r.coverageOnly],
        chainTables(
          r.datasets.map((d) => d.table),
          { blocks: true, pools: r.pools },
        ),
      );
    },
  };
}
