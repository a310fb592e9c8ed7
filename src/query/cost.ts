/**
 * The one cost function (docs/metering.md, "What a request costs"). The estimate
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

/**
 * Rounds half up after removing binary floating-point noise, so that
 * 15 × 0.2 × 0.5 = 1.5000000000000002 and 1001 × 0.5 = 500.5 both round the way
 * the decimal arithmetic of the formula says (2 and 501).
 */
export function roundHalfUp(x: number): number {
  return Math.round(Number(x.toPrecision(12)));
}

const num = (n: number) => String(n);

export function computeCost(input: CostInput, blocksPerDay: BlocksPerDay = defaultBlocksPerDay): Cost {
  const { costClass, range } = input;
  if (costClass.kind === 'days') {
    const seconds = range.kind === 'time' ? (range.until - range.since) / 1000 : 0;
    const days = Math.max(1, Math.ceil(seconds / SECONDS_PER_DAY));
    const cost = Math.max(costClass.minimum, days * costClass.perDay);
    const daysText = `days = max(1, ceil(${num(seconds)} s ÷ ${SECONDS_PER_DAY} s/day)) = ${days}`;
    const costText = costClass.minimum > 0 ? `cost = max(${costClass.minimum}, ${days} × ${costClass.perDay} per day) = ${cost}` : `cost = ${days} × ${costClass.perDay} per day = ${cost}`;
    return { cost, breakdown: { range_type: 'day', days, cost_per_day: costClass.perDay, minimum: costClass.minimum, formula: `${daysText}; ${costText}` } };
  }
  const network = input.network.toUpperCase();
  const discount = networkInfo(network)?.costDiscount ?? 1;
  const aggDiscount = input.aggregate ? AGGREGATE_DISCOUNT : 1;
  const estimated = range.kind === 'time';
  let blockRange: number;
  let rangeText: string;
  if (range.kind === 'blocks') {
    blockRange = range.end - range.start;
    rangeText = `block_range = ${range.end} - ${range.start} = ${blockRange}`;
  } else {
    const seconds = (range.until - range.since) / 1000;
    const perDay = blocksPerDay(network);
    blockRange = roundHalfUp((seconds * perDay) / SECONDS_PER_DAY);
    rangeText = `block_range = round(${num(seconds)} s × ${perDay} blocks/day ÷ ${SECONDS_PER_DAY} s/day) = ${blockRange} (estimated from time)`;
  }
  const cost = Math.max(MIN_BLOCK_COST, roundHalfUp(blockRange * discount * aggDiscount));
  const formula = `${rangeText}; cost = max(${MIN_BLOCK_COST}, round(${blockRange} × ${discount} network discount (${network})` + ` × ${aggDiscount} aggregate discount)) = ${cost}`;
  return {
    cost,
    breakdown: {
      network: network.toLowerCase(),
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
