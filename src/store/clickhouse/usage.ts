/** Reads of the usage ledger on ClickHouse, through the functions of ./metering.ts (its inserts are applied whole, nothing waits). */
import type { UsageOperations } from '../types.ts';
import { hasCharge, recentCharges, usageByKeyAndPeriod, usedInPeriod } from './metering.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseUsage(store: () => ClickHouseStore): UsageOperations {
  return {
    usedInPeriod: (keyId, period) => usedInPeriod(store(), keyId, period),
    totals: (filter) => usageByKeyAndPeriod(store(), filter),
    recent: (keyId, period, limit) => recentCharges(store(), keyId, period, limit),
    charged: (requestId) => hasCharge(store(), requestId),
  };
}
