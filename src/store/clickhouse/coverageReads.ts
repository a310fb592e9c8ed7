/** Coverage reads in ClickHouse SQL (the contract: CoverageOperations). */
import type { CoverageOperations } from '../types.ts';
import { blocksAround, coveredIntervals, coveredScopes, coverageRows, isEmptyStore } from './lookups.ts';
import { recordChainStateClickHouse } from './publish.ts';
import type { ClickHouseStore } from './types.ts';

/** Computes a lookup's answer, or gives the one kept for it while the store has not changed (chDB, ../lookupCache.ts). */
export type Lookup = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

/** Every time afresh: a ClickHouse server's coverage changes by other processes' writes, which nothing here can see. */
export const noLookupCache: Lookup = (_key, compute) => compute();

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseCoverage(store: () => ClickHouseStore, lookup: Lookup = noLookupCache): CoverageOperations {
  return {
    intervals: (dataset, scope) => lookup(`coveredIntervals\0${dataset}\0${scope}`, () => coveredIntervals(store(), dataset, scope)),
    scopes: (dataset) => lookup(`coveredScopes\0${dataset}`, () => coveredScopes(store(), dataset)),
    blocksAround: (network, sinceMs, untilMs) => lookup(`blocksAround\0${network}\0${sinceMs}\0${untilMs}`, () => blocksAround(store(), network, sinceMs, untilMs)),
    isEmpty: () => isEmptyStore(store()),
    recordChainState: (scope, state) => recordChainStateClickHouse(store(), scope, state),
    rows: (datasets) => coverageRows(store(), datasets),
    // ClickHouse returns no table in insertion order; its renderer always sorts (by the sorting key, which reads in order anyway).
    isPhysicallyOrdered: () => Promise.resolve(false),
  };
}
