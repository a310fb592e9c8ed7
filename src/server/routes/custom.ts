/**
 * Operator-defined datasets (docs/custom-datasets.md), served under
 * `/v1/evm/custom`. Their routes are resolved per request from the store's
 * registry, so a dataset declared while the server runs is served within the
 * registry's lookup time, with no restart; each resolved route then goes
 * through the same validation, planning, metering and encoding as a built-in
 * one.
 */
import type { FastifyInstance } from 'fastify';
import { CUSTOM_BASE_PATH, customEndpoints } from '../../catalog/custom/customEndpoints.ts';
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import { dataRoutes, streamRouteOf, type DataRoute, type StreamRoute } from '../../catalog/derive/routes.ts';
import { ApiError } from '../../errors/apiError.ts';
import type { LinkStore } from '../../output/links/linkStore.ts';
import type { PlanContext } from '../../query/planRaw.ts';
import { plannerFor } from '../../query/planner.ts';
import { coveredIntervals } from '../../store/coverage.ts';
import type { Store } from '../../store/types.ts';
import { listCustomDatasets } from '../../store/customDatasets.ts';
import { sendError } from '../errorHandler.ts';
import { serveData } from './data.ts';
import { serveStream } from './stream.ts';
import type { StreamHub } from '../streams/hub.ts';
import { validateQuery } from './queryValidator.ts';

const EVENT_PATH = `${CUSTOM_BASE_PATH}/:name/events/:event`;
const PATH_SHAPE = new RegExp(`^${CUSTOM_BASE_PATH}/([a-z0-9_]+)/events/([a-z0-9_]+)$`);

/** The raw routes of a declaration, derived once per declaration read (the registry hands out the same object until it changes). */
const routesOf = new WeakMap<CustomDataset, readonly DataRoute[]>();

async function routeOf(store: Store, name: string, event: string): Promise<DataRoute | undefined> {
  const d = (await listCustomDatasets(store)).find((x) => x.name === name);
  if (!d) return undefined;
  let routes = routesOf.get(d);
  if (!routes) {
    routes = dataRoutes(customEndpoints(d)).filter((r) => r.kind === 'raw');
    routesOf.set(d, routes);
  }
  return routes.find((r) => r.endpoint.event === event);
}

/** The route of a custom dataset's path, if one is declared there (the cost calculator prices it like the route would). */
export async function customRouteAt(store: Store, path: string): Promise<DataRoute | undefined> {
  const [, name, event] = PATH_SHAPE.exec(path) ?? [];
  return name !== undefined && event !== undefined ? routeOf(store, name, event) : undefined;
}

/** What is declared, as `GET /v1/evm/custom` lists it: each event's path, columns and covered block ranges per network. */
async function listing(store: Store) {
  const datasets = await listCustomDatasets(store);
  return {
    datasets: await Promise.all(
      datasets.map(async (d) => ({
        name: d.name,
        networks: Object.fromEntries(Object.entries(d.networks).map(([code, n]) => [code, { addresses: n.addresses, from_block: n.fromBlock }])),
        events: await Promise.all(
          customEndpoints(d).map(async (e, i) => ({
            event: e.event,
            name: e.eventName,
            signature: d.events[i]?.signature,
            path: e.path,
            columns: e.columns.map((c) => ({ name: c.name, type: c.type, description: c.description })),
            verbose_columns: e.verboseColumns.map((c) => ({ name: c.name, type: c.type, description: c.description })),
            coverage: Object.fromEntries(
              await Promise.all(e.networks.map(async (network) => [network, (await coveredIntervals(store, e.id, network)).map((c) => ({ block_start: c.lo, block_end: c.hi }))])),
            ),
          })),
        ),
      })),
    ),
  };
}

/** The stream of a custom route, and the same parameters as a route for the validator, made once per route. */
const streamsOf = new WeakMap<DataRoute, { stream: StreamRoute; validated: DataRoute }>();

function streamOf(route: DataRoute): { stream: StreamRoute; validated: DataRoute } {
  let s = streamsOf.get(route);
  if (!s) {
    const stream = streamRouteOf(route);
    s = { stream, validated: { ...route, path: stream.path, params: stream.params } };
    streamsOf.set(route, s);
  }
  return s;
}

/** The parts of a custom event's path (EVENT_PATH). */
interface EventParams {
  readonly name: string;
  readonly event: string;
}

export function registerCustomRoutes(v1: FastifyInstance, ctx: PlanContext, links: LinkStore | null, streams: StreamHub | null = null): void {
  // Free, like the other discovery calls.
  v1.get(CUSTOM_BASE_PATH, { config: { engine: true } }, async () => listing(ctx.store));

  const declaredRoute = async ({ name, event }: EventParams): Promise<DataRoute> => {
    const route = await routeOf(ctx.store, name, event);
    if (route) return route;
    const declared = (await listCustomDatasets(ctx.store)).flatMap((d) => d.events.map((e) => `${d.name}/events/${e.event}`));
    throw new ApiError('not_found', `no custom dataset at ${CUSTOM_BASE_PATH}/${name}/events/${event}; declared: ${declared.join(', ') || 'none'} (GET ${CUSTOM_BASE_PATH} lists them)`);
  };

  if (streams) {
    v1.get<{ Params: EventParams; Querystring: Record<string, unknown> }>(`${EVENT_PATH}/stream`, async (request, reply) => {
      const { stream, validated } = streamOf(await declaredRoute(request.params));
      const query: Record<string, unknown> = { ...request.query };
      validateQuery(request.server, validated, query);
      return serveStream(request, reply, streams, stream, query);
    });
  }

  v1.get<{ Params: EventParams; Querystring: Record<string, unknown> }>(EVENT_PATH, { config: { engine: true } }, async (request, reply) => {
    const route = await declaredRoute(request.params);
    // Validation converts values in place: a copy, never the parsed query itself.
    const query: Record<string, unknown> = { ...request.query };
    validateQuery(request.server, route, query);
    return serveData(request, reply, { ctx, route, links, plan: plannerFor(route), query, endpoint: route.path });
  });

  // Answered before any body is read, as on every other data path.
  v1.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: EVENT_PATH,
    preParsing: async (request, reply) => sendError(new ApiError('method_not_allowed', `${request.method} is not allowed on ${request.url.split('?')[0]}; use GET`), reply.header('allow', 'GET')),
    handler: async () => undefined,
  });
}
