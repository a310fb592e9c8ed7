/**
 * The HTTP side of the metrics (README "Operating": Metrics): one
 * observation per request when its connection is done with it, whether the
 * response ended or the client left first, labelled by the route pattern so
 * that ids and query strings never become series.
 */
import { Transform, type Readable } from 'node:stream';
import { pipeInto } from '../../utils/pipeInto.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../../internal/metrics.ts';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/** The label of requests no route matched (404s): their URLs are the client's to choose, so never a label. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route pattern a request matched, for labels. */
export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

const bodyBytes = new WeakMap<FastifyRequest, { n: number }>();

function isStream(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && 'pipe' in payload && typeof payload.pipe === 'function';
}

/** Passes a streamed body through unchanged, counting its bytes as they go to the client. */
function counted(body: Readable, count: { n: number }): Readable {
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      count.n += chunk.length;
      cb(null, chunk);
    },
  });
  // Either side failing or closing early tears down the other, as Fastify expects of a body.
  return pipeInto(body, out);
}

/** Records every request of `app` (and of the plugins registered after this call) in `metrics`. */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.decorate('metrics', metrics);

  app.addHook('onRequest', (request, reply, done) => {
    const start = performance.now();
    const count = { n: 0 };
    bodyBytes.set(request, count);
    reply.raw.once('close', () => observe(metrics, request, reply, start, count.n));
    done();
  });

  app.addHook('onSend', (request, _reply, payload, done) => {
    const count = bodyBytes.get(request);
    if (!count) return done(null, payload);
    if (isStream(payload)) return done(null, counted(payload, count));
    if (typeof payload === 'string') count.n += Buffer.byteLength(payload);
    else if (Buffer.isBuffer(payload)) count.n += payload.length;
    done(null, payload);
  });
}

function observe(metrics: Metrics, request: FastifyRequest, reply: FastifyReply, start: number, bytes: number): void {
  const route = routeLabel(request);
  metrics.http.observe({
    method: request.method,
    route,
    status: reply.statusCode,
    seconds: (performance.now() - start) / 1000,
    bytes,
    aborted: !reply.raw.writableFinished,
  });
  // Set by the metering plugin on /v1 requests; committed only once the response was delivered whole.
  const state = request.meter;
  const charge = state?.charge;
  if (state && charge?.status === 'committed') metrics.metering.charged({ route, plan: state.plan.name, blocks: charge.reservation.cost });
}

/** `GET /metrics` on `app`: the Prometheus text of `metrics`. For operator listeners; on the public API only when the operator asks. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}
