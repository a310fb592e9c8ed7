/**
 * Several nodes serving the same chain, used as one: every request goes to
 * the node expected to answer first, each node keeps its own pace, and a
 * failing node is taken out for a while instead of failing the run.
 *
 * - Choice: the node with the lowest measured latency × (requests in flight + 1),
 *   among those that may take a request now; a node not measured yet is tried first.
 * - Pace, per node: at most `limit` requests in flight (AIMD: halved on a rate
 *   limit or a timeout, one more after each `limit` successes, up to
 *   `concurrency`) and, with `maxRate`, requests started per second (halved on
 *   a rate limit or a timeout, ×1.05 per success, up to `maxRate`).
 * - Failure: a node that fails (refused or cut connection, 5xx, timeout, 429)
 *   is out for backoff(consecutive failures), or its Retry-After when longer;
 *   the call moves to another node at once. When the wait is over, one
 *   request probes it; its success brings the node back.
 * - A call is attempted at most `retries` + 1 times over all nodes. When no
 *   node can take a request, it waits for the first one that can: with one
 *   node, that is the plain retry-with-backoff of a single endpoint.
 *
 * Failures of requests already in flight when a node failed are not counted
 * again, so that a node dying under 16 requests is one failure, not 16.
 */
import { type Backoff, backoffDelay, MAX_RETRY_AFTER_MS } from '../../utils/backoff.ts';
import { sleep as abortableSleep } from '../../utils/sleep.ts';

/** What a failed attempt says about the node that answered it. */
export type NodeFault = 'throttled' | 'timeout' | 'down';

/** How a caller judges an error: `answer` is the node's definitive reply (the node is fine; not retried). */
export type Verdict = { readonly kind: 'answer' } | { readonly kind: NodeFault; readonly retryAfterMs?: number | undefined };

export interface NodePoolOptions {
  /** Per node: requests in flight at most (the adaptive limit's ceiling). */
  readonly concurrency: number;
  /** Per node: requests started per second at most (the adaptive rate's ceiling); none when undefined. */
  readonly maxRate?: number | undefined;
  /** How long a failing node stays out, by its consecutive failures. */
  readonly backoff: Backoff;
  /** Attempts after the first, per call, over all nodes. */
  readonly retries: number;
  readonly signal?: AbortSignal | undefined;
  /** How a wait is spent; tests pass a recorder. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Called after each failed attempt that will be retried, for logs. */
  readonly onRetry?: ((info: { readonly attempt: number; readonly delayMs: number; readonly reason: string; readonly node: string }) => void) | undefined;
}

export interface NodeStatus {
  readonly label: string;
  readonly state: 'up' | 'out' | 'probing';
  readonly inFlight: number;
  readonly limit: number;
  /** Requests per second allowed now; null without maxRate. */
  readonly rate: number | null;
  /** Smoothed answer time in ms; null before the first answer. */
  readonly latencyMs: number | null;
  /** Requests sent, and of them failed. */
  readonly requests: number;
  readonly failures: number;
}

export interface NodePool<N> {
  readonly nodes: readonly N[];
  /** Runs `attempt` on the best node, moving to another one on a fault, as `judge` reads each error. */
  run<T>(attempt: (node: N) => Promise<T>, judge: (e: unknown) => Verdict): Promise<T>;
  /**
   * Reports a fault seen inside an answer that succeeded as a whole (a rate
   * limit on one item of a batch): the node is paced and paused as if the
   * request had failed. `startedAt` is when that request was sent.
   */
  penalize(node: N, fault: Exclude<Verdict, { kind: 'answer' }>, startedAt: number): void;
  status(): NodeStatus[];
}

interface NodeState<N> {
  readonly node: N;
  readonly label: string;
  inFlight: number;
  limit: number;
  rate: number | undefined;
  nextStartAt: number;
  latencyMs: number | undefined;
  /** Consecutive failures (one per failure episode). */
  failures: number;
  /** When the last counted failure happened: requests sent before it do not count again. */
  failedAt: number;
  outUntil: number;
  probing: boolean;
  successes: number;
  requests: number;
  errors: number;
}

const LATENCY_WEIGHT = 0.2;
const RATE_RECOVERY = 1.05;
/** A throttled rate never drops below this share of maxRate. */
const RATE_FLOOR = 1 / 64;

function initialState<N>(node: N, label: string, opts: NodePoolOptions): NodeState<N> {
  return {
    node,
    label,
    inFlight: 0,
    limit: opts.concurrency,
    rate: opts.maxRate,
    nextStartAt: 0,
    latencyMs: undefined,
    failures: 0,
    failedAt: Number.NEGATIVE_INFINITY,
    outUntil: 0,
    probing: false,
    successes: 0,
    requests: 0,
    errors: 0,
  };
}

/** A promise replaced each time `notify` resolves it: waiting callers race it to learn that a node freed a slot or changed state. */
function changeSignal(): { readonly changed: () => Promise<void>; readonly notify: () => void } {
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => {
    wake = resolve;
  });
  return {
    changed: () => changed,
    notify: () => {
      const w = wake;
      changed = new Promise<void>((resolve) => {
        wake = resolve;
      });
      w();
    },
  };
}

/** A node that has served its out time takes one probe at a time until it answers. */
const isOut = <N>(s: NodeState<N>, now: number) => s.outUntil > now;
const canStart = <N>(s: NodeState<N>, now: number) => !isOut(s, now) && s.nextStartAt <= now && s.inFlight < (s.failures > 0 ? 1 : s.limit);

/** The node expected to answer first among those that may start now, looking from `rotation` so that ties take turns. */
function pick<N>(states: readonly NodeState<N>[], rotation: number, now: number): NodeState<N> | null {
  let best: NodeState<N> | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let k = 0; k < states.length; k++) {
    const s = states[(rotation + k) % states.length];
    if (!s || !canStart(s, now)) continue;
    const score = (s.latencyMs ?? 0) * (s.inFlight + 1) + s.inFlight * 1e-6;
    if (score < bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best;
}

/** The node that may start soonest once a time passes (not one merely full), and when. */
function soonest<N>(states: readonly NodeState<N>[], now: number): { state: NodeState<N>; at: number } | null {
  let out: { state: NodeState<N>; at: number } | null = null;
  for (const s of states) {
    if (s.inFlight >= (s.failures > 0 ? 1 : s.limit)) continue;
    const at = Math.max(s.outUntil, s.nextStartAt);
    if (at > now && (out === null || at < out.at)) out = { state: s, at };
  }
  return out;
}

function succeed<N>(s: NodeState<N>, ms: number, opts: NodePoolOptions): void {
  s.latencyMs = s.latencyMs === undefined ? ms : s.latencyMs * (1 - LATENCY_WEIGHT) + ms * LATENCY_WEIGHT;
  s.failures = 0;
  s.probing = false;
  if (++s.successes >= s.limit) {
    s.successes = 0;
    s.limit = Math.min(opts.concurrency, s.limit + 1);
  }
  if (s.rate !== undefined && opts.maxRate !== undefined) s.rate = Math.min(opts.maxRate, s.rate * RATE_RECOVERY);
}

/** Applies a fault; returns how long the node is out (0 when the fault was already counted). */
function fault<N>(s: NodeState<N>, v: Exclude<Verdict, { kind: 'answer' }>, startedAt: number, opts: NodePoolOptions): number {
  s.errors++;
  s.probing = false;
  const now = Date.now();
  // A request sent before the last counted failure reports the same trouble again: only a longer Retry-After adds to it.
  if (startedAt < s.failedAt) {
    if (v.retryAfterMs !== undefined) s.outUntil = Math.max(s.outUntil, now + Math.min(v.retryAfterMs, MAX_RETRY_AFTER_MS));
    return Math.max(0, s.outUntil - now);
  }
  s.failures++;
  s.failedAt = now;
  s.successes = 0;
  if (v.kind !== 'down') {
    s.limit = Math.max(1, Math.floor(s.limit / 2));
    if (s.rate !== undefined && opts.maxRate !== undefined) s.rate = Math.max(opts.maxRate * RATE_FLOOR, s.rate / 2);
  }
  const delay = backoffDelay(opts.backoff, s.failures, v.retryAfterMs);
  s.outUntil = Math.max(s.outUntil, now + delay);
  return delay;
}

export function createNodePool<N>(nodes: readonly N[], labelOf: (node: N) => string, opts: NodePoolOptions): NodePool<N> {
  if (nodes.length === 0) throw new Error('a node pool needs at least one node');
  const wait = opts.sleep ?? abortableSleep;
  const states = nodes.map((node) => initialState(node, labelOf(node), opts));
  const byNode = new Map(states.map((s) => [s.node, s]));
  let rotation = 0;
  const { changed, notify } = changeSignal();

  async function acquire(): Promise<NodeState<N>> {
    for (;;) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const now = Date.now();
      const s = pick(states, rotation, now);
      rotation = (rotation + 1) % states.length;
      if (s) {
        s.inFlight++;
        s.requests++;
        if (s.failures > 0) s.probing = true;
        if (s.rate !== undefined) s.nextStartAt = Math.max(now, s.nextStartAt) + 1000 / s.rate;
        return s;
      }
      const next = soonest(states, now);
      const stop = new AbortController();
      const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
      const timed = (next === null ? abortOf(signal) : wait(next.at - now, signal)).then(() => 'timed' as const);
      const outcome = await Promise.race([timed, changed().then(() => 'changed' as const)]);
      stop.abort();
      if (next !== null && outcome === 'timed' && !opts.signal?.aborted) {
        // The wait is served even when a test's sleep returns before the clock moves.
        next.state.outUntil = Math.min(next.state.outUntil, Date.now());
        next.state.nextStartAt = Math.min(next.state.nextStartAt, Date.now());
      }
    }
  }

  return {
    nodes,
    async run(attempt, judge) {
      for (let n = 0; ; n++) {
        const s = await acquire();
        const startedAt = Date.now();
        try {
          const out = await attempt(s.node);
          succeed(s, Date.now() - startedAt, opts);
          return out;
        } catch (e) {
          if (opts.signal?.aborted) throw e;
          const v = judge(e);
          if (v.kind === 'answer') {
            succeed(s, Date.now() - startedAt, opts);
            throw e;
          }
          const delayMs = fault(s, v, startedAt, opts);
          if (n >= opts.retries) throw e;
          opts.onRetry?.({ attempt: n + 1, delayMs, reason: e instanceof Error ? e.message : String(e), node: s.label });
        } finally {
          s.inFlight--;
          notify();
        }
      }
    },
    penalize(node, v, startedAt) {
      const s = byNode.get(node);
      if (!s) return;
      fault(s, v, startedAt, opts);
      notify();
    },
    status() {
      const now = Date.now();
      return states.map((s) => ({
        label: s.label,
        state: isOut(s, now) ? 'out' : s.probing || s.failures > 0 ? 'probing' : 'up',
        inFlight: s.inFlight,
        limit: s.limit,
        rate: s.rate ?? null,
        latencyMs: s.latencyMs === undefined ? null : Math.round(s.latencyMs),
        requests: s.requests,
        failures: s.errors,
      }));
    },
  };
}

const abortOf = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
