/**
 * `GET …/events/{event}/stream` (docs/api.md, "Streams and cursors"): the
 * raw endpoint's rows as server-sent events, from a start, a cursor or
 * Last-Event-ID, up to an end or forever. Everything that can be refused is
 * refused as JSON before the first event; after that, failures are `error`
 * events.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import type { Finality, StreamRoute } from '../../catalog/derive/routes.ts';
import { ApiError } from '../../errors/apiError.ts';
import { planSelection } from '../../query/planSelection.ts';
import { assertStartCovered, checkPosition, endBlock, startPosition } from '../../query/streamPosition.ts';
import { watchStalledReader } from '../stalledReader.ts';
import type { StreamHub } from '../streams/hub.ts';
import { EventWriter } from '../streams/sse.ts';
import { streamCharges } from '../streams/streamCharges.ts';
import { runStream } from '../streams/streamSession.ts';

/** The parameters that place a stream, never passed to the raw planner of its batches. */
const POSITION_PARAMS = new Set(['cursor', 'block_start', 'block_end', 'since', 'until', 'finality', 'max_cost']);

export function registerStreamRoute(app: FastifyInstance, hub: StreamHub, route: StreamRoute): void {
  app.get<{ Querystring: Record<string, unknown> }>(route.path, { schema: { querystring: querySchema(route.params) }, config: { catalogParams: route.params } }, async (request, reply) =>
    serveStream(request, reply, hub, route, { ...request.query }),
  );
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export async function serveStream(request: FastifyRequest, reply: FastifyReply, hub: StreamHub, route: StreamRoute, query: Record<string, unknown>): Promise<FastifyReply> {
  const endpoint = route.raw.endpoint;
  if (endpoint.family === 'exchange') throw new Error('streams serve chain endpoints');
  // An EventSource that reconnects repeats its URL with the last id it saw: the id wins over the URL's start.
  const lastEventId = request.headers['last-event-id'];
  const resumeFrom = typeof lastEventId === 'string' && lastEventId.length > 0 ? lastEventId : undefined;
  const rawQuery = Object.fromEntries(Object.entries(query).filter(([k]) => !POSITION_PARAMS.has(k)));
  const finality: Finality = query.finality === 'final' ? 'final' : 'latest';
  const maxCost = int(query.max_cost) ?? null;

  const snap = await hub.store.snapshot();
  let start: Awaited<ReturnType<typeof startPosition>>;
  let end: number | null;
  let network: string;
  try {
    // The filters are checked (unknown token, bad address…) exactly as the raw endpoint checks them.
    const sel = await planSelection(snap, route.raw, { ...rawQuery, block_start: 0, block_end: 0 }, request.apiKey?.id);
    network = sel.network;
    const range = resumeFrom ? { cursor: resumeFrom } : { cursor: text(query.cursor), block_start: int(query.block_start), since: text(query.since) };
    start = await startPosition(snap, endpoint, network, range);
    end = await endBlock(snap, network, { block_end: int(query.block_end), until: text(query.until) }, start);
    if ((await checkPosition(snap, network, start)).kind === 'unknown') {
      throw new ApiError('invalid_cursor', `the cursor's block ${start.block} is not one this server ever held on ${network}`, { parameter: 'cursor' });
    }
    await assertStartCovered(snap, endpoint.id, network, start.block, end);
  } finally {
    await snap.close();
  }

  const state = request.meter;
  const leave = state ? hub.gate.enter(state.keyId, state.plan.concurrentStreams) : () => undefined;
  if (!leave) {
    throw new ApiError('rate_limited', `${state?.plan.concurrentStreams} streams of this key are already open (plan ${state?.plan.name}); close one first`, {
      concurrent_streams: state?.plan.concurrentStreams ?? 0,
    });
  }
  const stop = new AbortController();
  const forget = hub.open(stop);
  const out = new EventWriter();
  reply.raw.once('close', () => {
    stop.abort();
    leave();
    forget();
  });
  watchStalledReader(reply, request.server.stalledReaderMs, () => {
    request.log.warn({ seconds: request.server.stalledReaderMs / 1000 }, 'client stopped reading a stream; connection closed');
    reply.raw.destroy();
  });
  const charges = streamCharges(request, route.path, endpoint.cost, network, maxCost);
  void runStream(
    { route: route.raw, endpoint, network, query: rawQuery, finality, end },
    start,
    out,
    charges,
    { views: hub.views, watchers: hub.watchers, rows: hub.rows, heartbeatMs: hub.heartbeatMs, log: request.log },
    stop.signal,
  );
  return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no').send(out.body);
}
