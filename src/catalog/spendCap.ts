/**
 * The spend cap, chainq's own extension (docs/metering.md): every data route
 * takes `max_cost`, and a request whose cost is above it is refused before it
 * runs, with nothing charged.
 */
import type { Params } from './types.ts';

export const maxCostParams: Params = {
  max_cost: {
    type: 'integer',
    minimum: 0,
    description: 'Spend cap in blocks: when the query would cost more, it is refused with 400 cost_over_limit before it runs, and nothing is charged.',
  },
};
