/**
 * `max_cost` (docs/metering.md, "Spend cap"): a request priced above the
 * caller's cap is refused after planning and before anything is held,
 * run or charged. The cost-estimate endpoint applies the same rule, so it
 * answers what the request itself would.
 */
import { ApiError } from '../errors/apiError.ts';

export function assertWithinSpendCap(cost: number, maxCost: unknown): void {
  if (typeof maxCost !== 'number') return;
  if (cost <= maxCost) return;
  throw new ApiError('cost_over_limit', `this query costs ${cost} blocks, more than max_cost=${maxCost}; it was not run and nothing was charged. Narrow the range or raise max_cost`, {
    cost,
    max_cost: maxCost,
  });
}
