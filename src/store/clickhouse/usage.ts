/**
 * Reads of the usage ledger on ClickHouse, through the functions of
 * ./metering.ts. Every read settles the store's ledger first: on chDB its
 * journal reaches the table in the background.
 */
import type { UsageOperations } from '../types.ts';
import { hasCharge, recentCharges, usageByKeyAndPeriod, usedInPeriod } from './metering.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseUsage(store: () => ClickHouseStore): UsageOperations {
  return {
    async usedInPeriod(keyId, period) {
      await store().ledger?.settle();
      return usedInPeriod(store(), keyId, period);
    },
    async totals(filter) {
      await store().ledger?.settle();
      return usageByKeyAndPeriod(store(), filter);
    },
    async recent(keyId, period, limit) {
      await store().ledger?.settle();
      return recentCharges(store(), keyId, period, limit);
    },
    async charged(requestId) {
      await store().ledger?.settle();
      return hasCharge(store(), requestId);
    },
  };
}
