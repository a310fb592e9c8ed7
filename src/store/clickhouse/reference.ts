/**
 * Reference data on ClickHouse: each import or rebuild runs as on DuckDB in
 * the scratch store, over the tables' rows (and the columns it reads of
 * others), and each table's new contents replace the old in one step
 * (./publish.ts, `rewriteTables`; docs/storage.md, "Writes without
 * transactions").
 */
import { stakingWithdrawalRequest } from '../../protocols/staking/catalog.ts';
import { venueAOhlcv } from '../../catalog/venues/venue_a.ts';
import type { ReferenceOperations } from '../types.ts';
import { rewriteTables, type RewriteInput } from './publish.ts';
import type { ClickHouseStore } from './types.ts';

/** What the price rebuild reads: the candles' closes and the withdrawal requests' stETH-per-share rate. */
const PRICE_INPUTS: readonly RewriteInput[] = [
  { table: venueAOhlcv.table.name, columns: ['token', 'time', 'close'] },
  { table: stakingWithdrawalRequest.table.name, columns: ['time', 'burned_amount', 'burned_shares'] },
];

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseReference(store: () => ClickHouseStore): ReferenceOperations {
  return {
    importTokens: (file) => rewriteTables(store(), ['tokens'], (scratch) => scratch.reference.importTokens(file)),
    importLabels: (file) => rewriteTables(store(), ['labels'], (scratch) => scratch.reference.importLabels(file)),
    async count(table) {
      const ch = store();
      const [r] = await ch.query<{ n: number }>(`SELECT count() AS n FROM ${ch.table(table)}`);
      return Number(r?.n ?? 0);
    },
    refreshPrices: (rules) => rewriteTables(store(), ['prices'], (scratch) => scratch.reference.refreshPrices(rules), { inputs: PRICE_INPUTS, fresh: true }),
  };
}
