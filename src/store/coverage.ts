/**
 * Coverage: the intervals that ingestion completed, per dataset and scope
 * (network, or token for venues), written in the same transaction as the rows.
 * Also the physical-order flags that appending out of order sets. Each engine
 * answers in its own folder (`store.coverage`).
 */
import type { CoverageRow, Store } from './types.ts';
import type { Interval } from './intervals.ts';

export { gaps, intersect, union, type Interval } from './intervals.ts';
export type { CoverageRow } from './types.ts';

export const coveredIntervals = (store: Store, dataset: string, scope: string): Promise<Interval[]> => store.coverage.intervals(dataset, scope);

/** Scopes (tokens, networks) that hold any coverage of `dataset`, sorted. */
export const coveredScopes = (store: Store, dataset: string): Promise<string[]> => store.coverage.scopes(dataset);

/**
 * The last known block of `network` before `sinceMs` and the first at or
 * after `untilMs` (epoch milliseconds); null where the blocks table has none.
 */
export const blocksAround = (store: Store, network: string, sinceMs: number, untilMs: number): Promise<{ before: number | null; after: number | null }> =>
  store.coverage.blocksAround(network, sinceMs, untilMs);

/** Whether the store has never held data nor keys. */
export const isEmptyStore = (store: Store): Promise<boolean> => store.coverage.isEmpty();

/** What ingestion of a chain last saw: its confirmation depth and the head. Kept per network (or chain) scope. */
export const recordChainState = (store: Store, scope: string, state: { confirmations: number; head: number | null }): Promise<void> => store.coverage.recordChainState(scope, state);

/** Every covered interval of the given datasets, in (dataset, scope, lo) order. */
export const coverageRows = (store: Store, datasets: readonly string[]): Promise<CoverageRow[]> => store.coverage.rows(datasets);

/**
 * Whether the rows of a dataset and scope sit in the table in their output
 * order, so that a query may stream them without sorting (DuckDB preserves
 * insertion order for queries without ORDER BY).
 */
export const isPhysicallyOrdered = (store: Store, dataset: string, scope: string): Promise<boolean> => store.coverage.isPhysicallyOrdered(dataset, scope);
