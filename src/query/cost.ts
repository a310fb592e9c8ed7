/**
 * The one cost function (interface.md §8.3–8.4, decisions.md §6). The estimate
 * endpoint and the charge both call it, so they cannot disagree.
 */
import { SECONDS_PER_DAY } from '../catalog/common.ts';
import { networkInfo } from '../catalog/networks.ts';
import type { CostClass } from '../catalog/types.ts';
import type { QueryRange } from './range.ts';

export const MIN_BLOCK_COST = 100;
export const AGGREGATE_DISCOUNT = 0.5;

export interface BlockCostBreakdown {
  network: string;
  network_discount: number;
  is_aggregate: boolean;
  aggregate_discount: number;
  range_type: 'block' | 'time';
  block_range: number;
  estimated_from_time: boolean;
  block_cost: number;
  formula: string;
}

export interface DayCostBreakdown {
  range_type: 'day';
  days: number;
  cost_per_day: number;
  minimum: number;
  formula: string;
}

export interface Cost {
  readonly cost: number;
  readonly breakdown: BlockCostBreakdown | DayCostBreakdown;
}

export type BlocksPerDay = (network: string) => number;

export const defaultBlocksPerDay: BlocksPerDay = (network) => {
  const info = networkInfo(network);
  if (!info) throw new Error(`no blocks-per-day figure for ${network}`);
  return info.blocksPerDay;
};

export interface CostInput {
  readonly costClass: CostClass;
  readonly network: string;
  readonly range: QueryRange;
  readonly aggregate: boolean;
}

export function computeCost(input: CostInput, blocksPerDay: BlocksPerDay = defaultBlocksPerDay): Cost {
  const { costClass, range } = input;
  if (costClass.kind === 'days') {
    const seconds = range.kind === 'time' ? (range.until - range.since) / 1000 : 0;
    const days = Math.max(1, Math.ceil(seconds / SECONDS_PER_DAY));
    const cost = Math.max(costClass.minimum, days * costClass.perDay);
    const formula = costClass.minimum > 0
      ? `max(${costClass.minimum}, ${days} days × ${costClass.perDay}) = ${cost}`
      : `${days} days × ${costClass.perDay} = ${cost}`;
    return { cost, breakdown: { range_type: 'day', days, cost_per_day: costClass.perDay, minimum: costClass.minimum, formula } };
  }
  const discount = networkInfo(input.network)?.costDiscount ?? 1;
  const aggDiscount = input.aggregate ? AGGREGATE_DISCOUNT : 1;
  const estimated = range.kind === 'time';
  const blockRange = range.kind === 'blocks'
    ? range.end - range.start
    : Math.round(((range.until - range.since) / 1000) * blocksPerDay(input.network) / SECONDS_PER_DAY);
  const raw = Math.round(blockRange * discount * aggDiscount);
  const cost = Math.max(MIN_BLOCK_COST, raw);
  const rangeText = estimated ? `${blockRange} blocks (estimated from ${(range.until - range.since) / 1000} s at ${blocksPerDay(input.network)} blocks/day)` : `${blockRange} blocks`;
  const formula = `max(${MIN_BLOCK_COST}, round(${rangeText} × ${discount} network × ${aggDiscount} aggregate)) = ${cost}`;
  return {
    cost,
    breakdown: {
      network: input.network.toLowerCase(),
      network_discount: discount,
      is_aggregate: input.aggregate,
      aggregate_discount: aggDiscount,
      range_type: estimated ? 'time' : 'block',
      block_range: blockRange,
      estimated_from_time: estimated,
      block_cost: cost,
      formula,
    },
  };
}
