/**
 * POST /v1/calculate-cost (docs/metering.md, "Previewing a cost"): where it
 * is, the body it takes and the answer it gives. The route
 * (src/server/routes/calculateCost.ts) checks the body itself, to answer
 * each mistake with its own message; OpenAPI documents it from here, and the
 * client and the MCP tools call this path.
 */
import { erc20Transfer } from '../protocols/erc20/catalog.ts';

export const CALCULATE_COST_PATH = '/v1/calculate-cost';

export const CALCULATE_COST_SUMMARY =
  'Prices a data request without running or charging it: the cost it would be charged, the quota left before and after, and how the cost was reached. Counts against the per-minute limit.';

/** The JSON body: the data request to price. */
export const CALCULATE_COST_BODY = {
  type: 'object',
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      description: `The path and query string of the data request to price, e.g. ${erc20Transfer.path}?network=ARB&token=USDC&block_start=405000100&block_end=405010100; an absolute URL is accepted.`,
    },
  },
} as const;

/** The answer: the price, and the quota around it. */
export const CALCULATE_COST_ANSWER = {
  type: 'object',
  required: ['query', 'cost', 'quota_remaining', 'quota_remaining_after', 'breakdown'],
  properties: {
    query: { type: 'string' },
    cost: { type: 'integer', description: 'Blocks this request would be charged (0 for discovery).' },
    quota_remaining: { type: 'integer' },
    quota_remaining_after: { type: 'integer' },
    breakdown: { type: 'object', description: 'How the cost was reached (docs/metering.md).' },
  },
} as const;
