/** One GET route per catalog data route: plan, hold the cost, stream from the engine, encode, charge at the end. */
import type { FastifyInstance } from 'fastify';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { CONTENT_TYPES, encodeBody } from '../../output/encode.ts';
import { planRaw, type PlanContext, type QueryPlan } from '../../query/planRaw.ts';
import { chargeOnCompletion, releaseCost, reserveCost } from '../plugins/metering.ts';

export type Planner = (ctx: PlanContext, route: DataRoute, query: Readonly<Record<string, unknown>>) => Promise<QueryPlan>;

/** The planner of a route. The cost estimate uses it too, so the estimate and the charge cannot disagree. */
export function plannerFor(_route: DataRoute): Planner {
  return planRaw;
}

export function registerDataRoute(app: FastifyInstance, ctx: PlanContext, route: DataRoute, plan: Planner = plannerFor(route)): void {
  app.get(route.path, { schema: { querystring: querySchema(route.params) } }, async (request, reply) => {
    const p = await plan(ctx, route, request.query as Record<string, unknown>);
    // Every check that can answer 4xx has run; the cost is held before the first byte.
    await reserveCost(request, reply, p.cost.cost);
    if (request.method === 'HEAD') {
      // HEAD answers what GET would (including 403) without running the query, so it is never charged.
      await releaseCost(request);
      return reply.header('content-type', CONTENT_TYPES[p.format]).send();
    }
    const exp = await ctx.store.copyToStream(p.sql, p.params, p.format);
    // A client that leaves mid-stream stops the engine at once.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) exp.cancel();
    });
    let encoded;
    try {
      encoded = await encodeBody(exp, p.format, p.basename);
    } catch (e) {
      exp.cancel();
      throw e;
    }
    reply.headers(encoded.headers);
    return reply.send(chargeOnCompletion(request, encoded.body));
  });
}
