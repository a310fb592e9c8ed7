/**
 * The meter: admits a request against its key's plan (per-minute limit),
 * holds its cost against the monthly budget before any byte is sent, and
 * charges or releases that hold when the response ends. It owns the policy;
 * a backend (embedded or Redis) owns the counters.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/apiError.ts';
import type { CommitAhead, MeterBackend, Reservation } from './backend.ts';
import { monthPeriod, secondsToWindowEnd, systemClock, windowIndex, type Clock } from './period.ts';
import { DEFAULT_PLANS, type Plan, type Plans } from './plans.ts';

/**
 * How "no limit" is written in the integer headers: the largest integer that
 * every JSON and JavaScript client reads exactly (2^53 - 1).
 */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

export type ChargeStatus = 'held' | 'committing' | 'committed' | 'released';

export interface Charge {
  readonly reservation: Reservation;
  status: ChargeStatus;
  /** The charge being written ahead of the response's end (`Meter.commitAhead`), if it is. */
  ahead: CommitAhead | null;
}

export interface MeterState {
  /** Unique per request: the X-Request-Id header and the ledger's request_id. */
  readonly requestId: string;
  readonly keyId: string;
  readonly plan: Plan;
  readonly period: string;
  readonly now: number;
  /** Requests in the current minute window, this one included. */
  readonly count: number;
  readonly rateLimited: boolean;
  /** Whole seconds until the current one-minute window ends (1-60). */
  readonly resetSeconds: number;
  /** Monthly blocks left, after this request's hold if it holds one. */
  remaining: number;
  charge: Charge | null;
}

export interface KeyIdentity {
  readonly id: string;
  readonly plan: string;
}

export interface Meter {
  readonly backend: MeterBackend;
  /** The plans in force; `setPlans` replaces them while the server runs (`chainq plans reload`, SIGHUP). */
  readonly plans: Plans;
  setPlans(plans: Plans): void;
  readonly clock: Clock;
  /** Counts the request against the key's per-minute limit and reads its monthly balance. */
  admit(key: KeyIdentity): Promise<MeterState>;
  /** Holds `cost` blocks for this request (on route `endpoint`); false (and nothing held) when the budget cannot cover it. */
  reserve(state: MeterState, cost: number, endpoint?: string): Promise<boolean>;
  /**
   * Starts writing the held cost's charge now, pending, while the request runs,
   * where the backend can (docs/metering.md, "Charges written ahead"): `commit`
   * then writes only its confirmation, `release` drops it.
   */
  commitAhead(state: MeterState): void;
  /** Charges the held cost. Resolves once the charge is durable. */
  commit(state: MeterState): Promise<void>;
  /** Drops the hold, if one is still held. Idempotent. */
  release(state: MeterState): Promise<void>;
  close(): Promise<void>;
}

export interface MeterOptions {
  readonly backend: MeterBackend;
  readonly plans?: Plans;
  readonly clock?: Clock;
}

const left = (budget: number | null, used: number, reserved: number): number => (budget === null ? UNLIMITED : Math.max(0, budget - used - reserved));

export function createMeter(opts: MeterOptions): Meter {
  const { backend } = opts;
  /** Drops a hold, and the pending charge written ahead for it, if one was. */
  const giveBack = (c: Charge): Promise<void> => (c.ahead ? c.ahead.drop() : backend.release(c.reservation));
  let plans = opts.plans ?? DEFAULT_PLANS;
  const clock = opts.clock ?? systemClock;

  return {
    backend,
    get plans() {
      return plans;
    },
    setPlans(next) {
      plans = next;
    },
    clock,

    async admit(key) {
      const plan = plans.get(key.plan);
      if (!plan) throw new ApiError('internal_error', `this key's plan '${key.plan}' is not configured on the server; ask the operator to fix the key or the plans file`);
      const now = clock();
      const period = monthPeriod(now);
      const limited = plan.requestsPerMinute !== null;
      const r = await backend.admit({ keyId: key.id, window: windowIndex(now), period, now, countRequest: limited });
      return {
        requestId: randomUUID(),
        keyId: key.id,
        plan,
        period,
        now,
        count: r.count,
        rateLimited: limited && r.count > plan.requestsPerMinute!,
        resetSeconds: secondsToWindowEnd(now),
        remaining: left(plan.monthlyBlocks, r.used, r.reserved),
        charge: null,
      };
    },

    async reserve(state, cost, endpoint) {
      if (state.charge) throw new Error('a request holds at most one reservation');
      const reservation: Reservation = { id: state.requestId, keyId: state.keyId, period: state.period, cost, at: state.now, ...(endpoint === undefined ? {} : { endpoint }) };
      const r = await backend.reserve(reservation, state.plan.monthlyBlocks);
      state.remaining = left(state.plan.monthlyBlocks, r.used, r.reserved);
      if (!r.ok) return false;
      state.charge = { reservation, status: 'held', ahead: null };
      return true;
    },

    commitAhead(state) {
      const c = state.charge;
      if (c?.status !== 'held' || c.ahead) return;
      c.ahead = backend.commitAhead?.(c.reservation) ?? null;
    },

    async commit(state) {
      const c = state.charge;
      if (c?.status !== 'held') return;
      c.status = 'committing';
      try {
        if (c.ahead) {
          await c.ahead.durable;
          // Made to count only now, just before the body's last bytes are sent.
          await c.ahead.confirm();
        } else await backend.commit(c.reservation);
        c.status = 'committed';
      } catch (e) {
        // Not recorded, so not charged: give the hold back.
        c.status = 'released';
        await giveBack(c).catch(() => undefined);
        throw e;
      }
    },

    async release(state) {
      const c = state.charge;
      if (c?.status !== 'held') return;
      c.status = 'released';
      await giveBack(c);
    },

    close: () => backend.close(),
  };
}
