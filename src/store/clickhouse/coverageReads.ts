/** Coverage reads in ClickHouse SQL (the contract: CoverageOperations). */
import type { CoverageOperations } from '../types.ts';
import { blocksAround, coveredIntervals, coveredScopes, coverageRows, isEmptyStore } from './lookups.ts';
import { recordChainStateClickHouse } from './publish.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseCoverage(store: () => ClickHouseStore): CoverageOperations {
  return {
    intervals: (dataset, scope) => coveredIntervals(store(), dataset, scope),
    scopes: (dataset) => coveredScopes(store(), dataset),
    blocksAround: (network, sinceMs, untilMs) => blocksAround(store(), network, sinceMs, untilMs),
    isEmpty: () => isEmptyStore(store()),
    recordChainState: (scope, state) => recordChainStateClickHouse(store(), scope, state),
    rows: (datasets) => coverageRows(store(), datasets),
    // ClickHouse returns no table in insertion order; its renderer always sorts (by the sorting key, which reads in order anyway).
    isPhysicallyOrdered: () => Promise.resolve(false),
  };
}
