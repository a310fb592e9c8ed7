/** One GET route per catalog data route: plan, hold the cost, then stream from the engine or hand out a link; charge at the end. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { CONTENT_TYPES, encodeBody, encodeWhole } from '../../output/encode.ts';
import type { LinkStore } from '../../output/links/linkStore.ts';
import type { PlanContext } from '../../query/planRaw.ts';
import { plannerFor, type Planner } from '../../query/planner.ts';
import { isSmall, laneOf } from '../../query/lane.ts';
import { chargeOnCompletion, commitCost, releaseCost, reserveCost, writeChargeAhead } from '../plugins/metering.ts';
import { watchStalledReader } from '../stalledReader.ts';
import { requestBaseUrl } from './links.ts';

export function registerDataRoute(app: FastifyInstance, ctx: PlanContext, route: DataRoute, links: LinkStore | null = null, plan: Planner = plannerFor(route)): void {
  // The catalog's parameters ride along so that a validation error can name accepted values.
  app.get<{ Querystring: Record<string, unknown> }>(route.path, { schema: { querystring: querySchema(route.params) }, config: { catalogParams: route.params, engine: true } }, async (request, reply) =>
    serveData(request, reply, { ctx, route, links, plan, query: request.query }),
  );
}

export interface DataRequest {
  readonly ctx: PlanContext;
  readonly route: DataRoute;
  readonly links: LinkStore | null;
  readonly plan: Planner;
  /** The query string, validated against the route's parameters. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The path kept in the usage ledger; the route's own path by default. */
  readonly endpoint?: string;
}

/** Answers a validated data request: plan, hold the cost, stream or hand out a link, charge. */
export async function serveData(request: FastifyRequest, reply: FastifyReply, r: DataRequest): Promise<FastifyReply> {
  const { ctx, route, links, plan, query } = r;
  const link = query.link === true;
  // Planning (coverage, lookups) and the export read one snapshot: a batch
  // that ingestion commits meanwhile is either wholly in the answer or not at all.
  const snap = await ctx.store.snapshot();
  let handedOver = false;
  try {
    // The plan, and so the cost, is the same with or without link=true.
    const p = await plan({ ...ctx, store: snap, ...(request.apiKey ? { keyId: request.apiKey.id } : {}) }, route, query);
    // Every check that can answer 4xx has run; the cost is held before the first byte.
    await reserveCost(request, reply, p.cost.cost, r.endpoint);
    if (p.headers) reply.headers(p.headers);
    // Heavy work waits in its own queue, so small queries never wait behind it.
    const lane = laneOf(p.cost.cost);
    if (request.method === 'HEAD') {
      // HEAD answers what GET would (including 403) without running the query, so it is never charged.
      await releaseCost(request);
      return reply.header('content-type', CONTENT_TYPES[p.format]).send();
    }
    if (link) {
      if (!links || p.format === 'json') throw new Error('link mode is not configured');
      const format = p.format;
      let body: Awaited<ReturnType<LinkStore['create']>>;
      try {
        const write = async (file: string) => {
          const started = performance.now();
          const rows = await snap.copyToFile(p.sql, p.params, format, file, { lane });
          request.server.metrics.engine.query({ route: route.path, format, seconds: (performance.now() - started) / 1000 });
          return rows;
        };
        body = await links.create({ format, basename: p.basename, write }, requestBaseUrl(request));
      } catch (e) {
        await releaseCost(request);
        throw e;
      }
      // The file exists: the link is the delivered result, charged like the query.
      await commitCost(request);
      return reply.header('cache-control', 'no-store').send(body);
    }
    const small = isSmall(p.cost.cost);
    // A small result is there in moments: its charge's durable write runs beside the engine rather than after it.
    if (small) writeChargeAhead(request);
    const started = performance.now();
    const exp = await snap.copyToStream(p.sql, p.params, p.format, { lane, small });
    handedOver = true;
    // Failures reach the client through the body; only completed queries are timed.
    exp.done.then(
      () => request.server.metrics.engine.query({ route: route.path, format: p.format, seconds: (performance.now() - started) / 1000 }),
      () => undefined,
    );
    // The snapshot ends when the engine is done with it.
    exp.done.finally(() => snap.close()).catch(() => undefined);
    if (exp.whole) {
      // Produced whole before its first byte is sent: the charge is made durable
      // first (docs/metering.md), unless the client has already gone.
      const encoded = encodeWhole(exp.whole, p.format, p.basename);
      if (!request.raw.socket?.destroyed) await commitCost(request);
      return reply.headers(encoded.headers).send(encoded.body);
    }
    // A client that leaves mid-stream stops the engine at once.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) exp.cancel();
    });
    // One that stays but stops reading gives its export up after a while (closing it cancels the export, above).
    watchStalledReader(reply, request.server.stalledReaderMs, () => {
      request.log.warn({ seconds: request.server.stalledReaderMs / 1000 }, 'client stopped reading; export cancelled and connection closed');
      reply.raw.destroy();
    });
    let encoded: Awaited<ReturnType<typeof encodeBody>>;
    try {
      encoded = await encodeBody(exp, p.format, p.basename);
    } catch (e) {
      exp.cancel();
      throw e;
    }
    reply.headers(encoded.headers);
    return reply.send(chargeOnCompletion(request, encoded.body));
  } catch (e) {
    // Nothing was delivered: the hold is given back (a pending charge written ahead dropped) before the error is answered.
    if (!handedOver) await releaseCost(request).catch(() => undefined);
    throw e;
  } finally {
    if (!handedOver) await snap.close();
  }
}
