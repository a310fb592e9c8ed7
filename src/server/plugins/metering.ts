/**
 * Metering on the /v1 scope (docs/metering.md, docs/lifecycle.md):
 *   onRequest (after auth)  count the request in its minute window → 429 rate_limited;
 *                           take one of the key's concurrent slots → 429 rate_limited
 *   handler                 reserveCost() holds the query's cost → 403 quota_exceeded;
 *                           writeChargeAhead() starts its durable write beside a small query's run
 *   body end                chargeOnCompletion() records the charge durably, then ends the body
 *   onSend                  X-RateLimit-* / X-Request-Cost / X-Request-Id on every response
 *   close                   any hold not charged is released
 */
import { Transform, type Readable } from 'node:stream';
import { pipeInto } from '../../utils/pipeInto.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '../../errors/apiError.ts';
import { createConcurrencyGate } from '../../metering/concurrency.ts';
import { UNLIMITED, type Meter, type MeterState } from '../../metering/meter.ts';
import { nextMonthStart } from '../../metering/period.ts';

declare module 'fastify' {
  interface FastifyRequest {
    meter: MeterState | null;
  }
  interface FastifyInstance {
    meter: Meter;
  }
}

/** The metering state of a request under /v1, which the metering hook has set before any route runs. */
export function meterOf(request: FastifyRequest): MeterState {
  if (!request.meter) throw new Error(`${request.url}: no metering state; the route is outside the metered scope`);
  return request.meter;
}

/** Seconds a client refused for concurrency waits before retrying: a slot frees when any of its requests ends. */
const CONCURRENCY_RETRY_SECONDS = 1;

/** A backend failure (Redis down, store error) is not the client's fault: 503, nothing charged. */
function unavailable(e: unknown): ApiError {
  if (isApiError(e)) return e;
  return new ApiError('unavailable', 'metering is temporarily unavailable; the request was not run and not charged, retry shortly');
}

export function registerMetering(v1: FastifyInstance, meter: Meter): void {
  v1.decorate('meter', meter);
  v1.decorateRequest('meter', null);
  const inFlight = createConcurrencyGate();

  v1.addHook('onRequest', async (request, reply) => {
    // Auth runs first in this scope and throws without a key, so a key is here.
    const key = request.apiKey;
    if (!key) return;
    let state: MeterState;
    try {
      state = await meter.admit(key);
    } catch (e) {
      request.log.error({ err: e }, 'metering admit failed');
      throw unavailable(e);
    }
    request.meter = state;
    if (state.rateLimited) {
      throw new ApiError('rate_limited', `more than ${state.plan.requestsPerMinute} requests this minute (plan ${state.plan.name}); retry in ${state.resetSeconds} s`, {
        limit: state.plan.requestsPerMinute,
        retry_after: state.resetSeconds,
      });
    }
    const leave = inFlight.enter(key.id, state.plan.concurrentRequests);
    if (!leave) {
      reply.header('retry-after', String(CONCURRENCY_RETRY_SECONDS));
      throw new ApiError('rate_limited', `${state.plan.concurrentRequests} requests of this key are already in flight (plan ${state.plan.name}); retry when one has finished`, {
        concurrent_limit: state.plan.concurrentRequests,
        retry_after: CONCURRENCY_RETRY_SECONDS,
      });
    }
    // The slot is held until the response has ended or the client has gone, whichever comes first.
    reply.raw.once('close', leave);
    reply.raw.once('finish', leave);
  });

  v1.addHook('onSend', async (request, reply, payload) => {
    reply.headers(meteringHeaders(request.meter, reply.statusCode));
    return payload;
  });

  // Belt and braces: whatever path a response took, a hold that was not charged is given back.
  v1.addHook('onResponse', async (request) => {
    if (request.meter?.charge) await meter.release(request.meter).catch((e: unknown) => request.log.error({ err: e }, 'metering release failed'));
  });
}

/**
 * The metering headers of a response. Without a known key (401, or a failure
 * before the key was checked) all four are 0: there is no allowance to show.
 */
export function meteringHeaders(state: MeterState | null, statusCode: number): Record<string, string> {
  if (!state) return { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-request-cost': '0', 'x-ratelimit-reset': '0' };
  const charged = statusCode < 400 && state.charge !== null && state.charge.status !== 'released';
  const cost = charged && state.charge ? state.charge.reservation.cost : 0;
  // `remaining` was read after the hold; a hold that is not charged (released,
  // or an error after it was taken) is not spent.
  const unspent = state.charge && !charged ? state.charge.reservation.cost : 0;
  const remaining = state.remaining === UNLIMITED ? UNLIMITED : Math.min(UNLIMITED, state.remaining + unspent);
  const h: Record<string, string> = {
    'x-ratelimit-limit': String(state.plan.requestsPerMinute ?? UNLIMITED),
    'x-ratelimit-remaining': String(remaining),
    'x-request-cost': String(cost),
    'x-ratelimit-reset': String(state.resetSeconds),
    'x-request-id': state.requestId,
  };
  if (state.rateLimited) h['retry-after'] = String(state.resetSeconds);
  return h;
}

/**
 * Holds `cost` blocks of the key's monthly budget for this request, or
 * answers 403 quota_exceeded. Call after every check that can answer 4xx and
 * before the first byte. The hold is released when the response closes
 * without having been charged.
 */
export async function reserveCost(request: FastifyRequest, reply: FastifyReply, cost: number, endpoint: string = request.routeOptions.url ?? request.url): Promise<void> {
  const state = request.meter;
  if (!state) throw new Error('reserveCost needs the metering plugin on this route');
  const meter = request.server.meter;
  let ok: boolean;
  try {
    // The route's path pattern, never the query string: it is kept in the ledger.
    ok = await meter.reserve(state, cost, endpoint);
  } catch (e) {
    request.log.error({ err: e }, 'metering reserve failed');
    throw unavailable(e);
  }
  if (!ok) {
    const resets = new Date(nextMonthStart(state.now)).toISOString();
    throw new ApiError(
      'quota_exceeded',
      `this query costs ${cost} blocks but ${state.remaining} are left this month on plan ${state.plan.name}; the budget resets at ${resets}. Nothing was charged.`,
      { remaining: state.remaining, cost },
    );
  }
  reply.raw.once('close', () => {
    void meter.release(state).catch((e: unknown) => request.log.error({ err: e }, 'metering release failed'));
  });
}

/**
 * Starts the held cost's durable write now, beside the engine's run, for a
 * result that will be complete in moments (docs/metering.md, "Charges
 * written ahead"); `commitCost` or `chargeOnCompletion` then only confirm it,
 * and `releaseCost` drops it. A no-op where the backend cannot.
 */
export function writeChargeAhead(request: FastifyRequest): void {
  if (request.meter) request.server.meter.commitAhead(request.meter);
}

/** Gives the hold back at once: the request turned out not to be chargeable (HEAD, or a failure before any byte). */
export async function releaseCost(request: FastifyRequest): Promise<void> {
  if (request.meter) await request.server.meter.release(request.meter);
}

/**
 * Records the held cost as charged now, for a result complete before it is
 * sent (a download link, a small result in one piece); answers 503 when the
 * charge cannot be recorded, and the result is then not sent.
 */
export async function commitCost(request: FastifyRequest): Promise<void> {
  if (!request.meter?.charge) return;
  try {
    await request.server.meter.commit(request.meter);
  } catch (e) {
    request.log.error({ err: e }, 'charge could not be recorded; the result is not sent and not charged');
    if (isApiError(e)) throw e;
    throw new ApiError('unavailable', 'metering could not record the charge; the result was not sent and nothing was charged, retry shortly');
  }
}

/**
 * Passes the body through and, once all of it has been produced, records the
 * charge durably before letting the body end. So a client never receives a
 * complete response whose charge is not recorded, and a response that breaks
 * off before its end (client gone, engine failure) is never charged.
 */
export function chargeOnCompletion(request: FastifyRequest, body: Readable): Readable {
  const state = request.meter;
  if (!state?.charge) return body;
  const meter = request.server.meter;
  const out = new Transform({
    transform(chunk, _enc, cb) {
      cb(null, chunk);
    },
    flush(cb) {
      meter.commit(state).then(
        () => cb(),
        (e: unknown) => {
          request.log.error({ err: e }, 'charge could not be recorded; the response is cut off and not charged');
          cb(e instanceof Error ? e : new Error(String(e)));
        },
      );
    },
  });
  return pipeInto(body, out);
}
