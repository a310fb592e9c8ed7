/**
 * Which export lane a planned query waits in (README, "Fair scheduling"),
 * judged on its planned cost before it runs: the cost follows the blocks (or
 * days) a query reads, which is what its engine time follows too.
 */
import type { ExportLane } from '../store/exportLanes.ts';

/** Planned cost from which a query is heavy: a 1,000-block ETH raw query, a 2,000-block aggregate. */
export const HEAVY_COST = 1_000;

export function laneOf(cost: number): ExportLane {
  return cost >= HEAVY_COST ? 'heavy' : 'light';
}

/**
 * Planned cost up to which a result is expected to be small: the least a block
 * query costs (100 ETH blocks, 500 on ARB) or one day of candles. Such a JSON
 * result may be built by the engine in one piece (src/store/duckdb/createDuckDbStore.ts).
 */
export const SMALL_COST = 100;

export function isSmall(cost: number): boolean {
  return cost <= SMALL_COST;
}
