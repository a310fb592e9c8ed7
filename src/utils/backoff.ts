/**
 * The one exponential backoff of the code base: retry transports, node
 * cooldowns, supervised jobs and the API client all wait by it.
 */
export interface Backoff {
  /** The first wait. */
  readonly baseMs: number;
  /** No computed wait is longer (a server's Retry-After may be, up to MAX_RETRY_AFTER_MS). */
  readonly maxMs: number;
  /** Spread of each wait, ±fraction (0.25: 75 % to 125 %), so that clients started together do not retry together. Default 0. */
  readonly jitter?: number;
}

/** A server's Retry-After is honoured up to this long; beyond it a misconfigured server would stall the run. */
export const MAX_RETRY_AFTER_MS = 300_000;

/**
 * The wait before retry number `attempt` (1 for the first): base × 2^(attempt − 1),
 * capped at maxMs, spread by the jitter. A server's Retry-After wins when it is longer.
 */
export function backoffDelay(policy: Backoff, attempt: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 40));
  const jitter = policy.jitter ?? 0;
  const spread = jitter > 0 ? exp * (1 - jitter + 2 * jitter * random()) : exp;
  return retryAfterMs === undefined ? spread : Math.max(spread, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}
