/**
 * GET /v1/usage: the calling key's plan, limits and month so far, read from
 * the same meter (embedded ledger or Redis) that charges it. Free: it holds
 * no cost, but like every /v1 call it counts against the per-minute limit.
 */
import type { FastifyInstance } from 'fastify';
import { USAGE_CHARGES_DEFAULT, USAGE_CHARGES_MAX, usageEndpoint } from '../../catalog/account.ts';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import { ApiError } from '../../errors/apiError.ts';
import { UNLIMITED } from '../../metering/meter.ts';
import { nextMonthStart } from '../../metering/period.ts';
import { meterOf } from '../plugins/metering.ts';

/** ISO 8601 UTC, with milliseconds only when there are some (as event times are written). */
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export interface UsageBody {
  plan: string;
  requests_per_minute: number | null;
  monthly_blocks: number | null;
  concurrent_requests: number | null;
  month: string;
  blocks_used: number;
  blocks_left: number | null;
  requests_charged: number;
  requests_this_minute: number;
  resets_at: string;
  last_charges: { request_id: string; endpoint: string | null; cost: number; admitted_at: string; charged_at: string }[];
}

export function registerUsage(v1: FastifyInstance): void {
  const params = usageEndpoint.params;
  v1.get<{ Querystring: { charges?: number } }>(
    usageEndpoint.path,
    { schema: { querystring: querySchema(params) }, config: { catalogParams: params, engine: true } },
    async (request): Promise<UsageBody> => {
      const state = meterOf(request);
      const wanted = request.query.charges ?? USAGE_CHARGES_DEFAULT;
      if (wanted > USAGE_CHARGES_MAX) throw new ApiError('invalid_parameter', `charges must be at most ${USAGE_CHARGES_MAX}, got ${wanted}`);
      const backend = request.server.meter.backend;
      const [rows, charges] = await Promise.all([
        backend.usage({ keyId: state.keyId, period: state.period }),
        wanted > 0 ? backend.recentCharges(state.keyId, state.period, wanted) : Promise.resolve([]),
      ]);
      const month = rows[0] ?? { requests: 0, blocks: 0 };
      const { plan } = state;
      return {
        plan: plan.name,
        requests_per_minute: plan.requestsPerMinute,
        monthly_blocks: plan.monthlyBlocks,
        concurrent_requests: plan.concurrentRequests,
        month: state.period,
        blocks_used: month.blocks,
        blocks_left: plan.monthlyBlocks === null || state.remaining === UNLIMITED ? null : state.remaining,
        requests_charged: month.requests,
        requests_this_minute: state.count,
        resets_at: iso(nextMonthStart(state.now)),
        last_charges: charges.map((c) => ({ request_id: c.requestId, endpoint: c.endpoint, cost: c.cost, admitted_at: iso(c.admittedAt), charged_at: iso(c.chargedAt) })),
      };
    },
  );
}
