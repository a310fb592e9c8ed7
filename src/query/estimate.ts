/** The cost-estimate response (docs/metering.md, "Previewing a cost"), from the one cost function's result. */
import type { BlockCostBreakdown, Cost, DayCostBreakdown } from './cost.ts';

/** The breakdown of a call that costs nothing (discovery). */
export interface FreeBreakdown {
  readonly range_type: 'none';
  readonly formula: string;
}

export interface CostEstimate {
  /** The submitted path and query string, echoed. */
  readonly query: string;
  readonly cost: number;
  readonly quota_remaining: number;
  /** quota_remaining - cost; negative means the query would be refused with quota_exceeded. */
  readonly quota_remaining_after: number;
  readonly breakdown: BlockCostBreakdown | DayCostBreakdown | FreeBreakdown;
}

export const FREE: { readonly cost: 0; readonly breakdown: FreeBreakdown } = {
  cost: 0,
  breakdown: { range_type: 'none', formula: 'discovery and cost-estimate calls cost 0' },
};

export function buildEstimate(query: string, cost: Cost | typeof FREE, quotaRemaining: number): CostEstimate {
  return {
    query,
    cost: cost.cost,
    quota_remaining: quotaRemaining,
    quota_remaining_after: quotaRemaining - cost.cost,
    breakdown: cost.breakdown,
  };
}
