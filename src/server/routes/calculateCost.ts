/**
 * POST /v1/calculate-cost: prices a query without running it or charging it.
 * The embedded query goes through the same steps as if it were sent: the
 * route's own JSON-Schema validator (compiled by this server's validator
 * compiler, from the same schema), the same query-string parser, and the
 * route's planner. So an invalid query gets exactly the error it would get,
 * and the price is the one that would be charged.
 */
import { parse as parseQueryString } from 'fast-querystring';
import type { FastifyInstance } from 'fastify';
import { CALCULATE_COST_PATH } from '../../catalog/calculateCost.ts';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { ApiError } from '../../errors/apiError.ts';
import { FREE, buildEstimate } from '../../query/estimate.ts';
import type { PlanContext } from '../../query/planRaw.ts';
import { plannerFor } from '../../query/planner.ts';
import { meterOf } from '../plugins/metering.ts';
import { customRouteAt } from './custom.ts';
import { validateQuery } from './queryValidator.ts';

const USAGE = 'send {"query": "/v1/<endpoint>?<parameters>"}, the path and query string of the request to price';

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/** The path and query string of `query`, which may also be an absolute URL. */
function splitTarget(query: string): { path: string; search: string } {
  let url: URL;
  try {
    url = new URL(query, 'http://chainq.invalid');
  } catch {
    throw new ApiError('invalid_body', `"query" is not a path: ${USAGE}`);
  }
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  if (!path.startsWith('/v1/')) throw new ApiError('invalid_body', `"query" must be a path under /v1/: ${USAGE}`);
  return { path, search: url.search.replace(/^\?/, '') };
}

export function registerCalculateCost(v1: FastifyInstance, ctx: PlanContext, routes: readonly DataRoute[]): void {
  const byPath = new Map(routes.map((r) => [r.path, r]));

  v1.post(CALCULATE_COST_PATH, { config: { engine: true } }, async (request) => {
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new ApiError('unsupported_media_type', `send the body as Content-Type: application/json; ${USAGE}`);
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalid_body', `the body must be a JSON object: ${USAGE}`);
    if (!('query' in body) || body.query === undefined) throw new ApiError('invalid_body', `the body has no "query": ${USAGE}`);
    if (typeof body.query !== 'string' || body.query.trim() === '') throw new ApiError('invalid_body', `"query" must be a non-empty string: ${USAGE}`);
    const query = body.query.trim();
    const { path, search } = splitTarget(query);
    const state = meterOf(request);

    const route = byPath.get(path) ?? (await customRouteAt(ctx.store, path));
    if (!route) {
      // A discovery call exists and is free; anything else would be a 404.
      if (request.server.hasRoute({ method: 'GET', url: path })) return buildEstimate(query, FREE, state.remaining);
      throw new ApiError('not_found', `no endpoint at ${path}; see /openapi.json`);
    }
    const raw: Record<string, unknown> = search ? { ...parseQueryString(search) } : {};
    validateQuery(request.server, route, raw);
    const plan = await plannerFor(route)({ ...ctx, ...(request.apiKey ? { keyId: request.apiKey.id } : {}) }, route, raw);
    return buildEstimate(query, plan.cost, state.remaining);
  });
}
