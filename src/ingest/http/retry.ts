/**
 * Retries with exponential backoff for every ingestion transport (archive
 * downloads, node HTTP APIs, JSON-RPC). The policy is explicit data so that
 * the CLI can expose it and tests can record the waits instead of sleeping.
 */

export interface RetryPolicy {
  /** Attempts after the first one. */
  readonly retries: number;
  /** First wait; each further wait doubles, up to maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** How a wait is spent; tests pass a recorder. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called before each wait, for logs. */
  readonly onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 6, baseDelayMs: 500, maxDelayMs: 30_000 };

/** An error worth retrying: a network failure, a timeout, HTTP 429 or a transient 5xx. */
export class RetryableError extends Error {
  /** A wait the server asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, opts: { cause?: unknown; retryAfterMs?: number | undefined } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RetryableError';
    this.retryAfterMs = opts.retryAfterMs;
  }
}

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The wait before retry number `attempt` (1-based): base × 2^(attempt−1), capped; a server's Retry-After wins when longer. */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Honour the server's wish even above our cap, within reason (5 minutes).
  return retryAfterMs === undefined ? exp : Math.max(exp, Math.min(retryAfterMs, 300_000));
}

/**
 * Runs `fn` until it succeeds, retrying only RetryableError (and errors that
 * `isRetryable` accepts) up to `policy.retries` times.
 */
export async function withRetry<T>(policy: RetryPolicy, fn: (attempt: number) => Promise<T>, isRetryable: (e: unknown) => boolean = (e) => e instanceof RetryableError): Promise<T> {
  const sleep = policy.sleep ?? defaultSleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= policy.retries || !isRetryable(e)) throw e;
      const delayMs = backoffDelay(policy, attempt + 1, e instanceof RetryableError ? e.retryAfterMs : undefined);
      policy.onRetry?.({ attempt: attempt + 1, delayMs, reason: e instanceof Error ? e.message : String(e) });
      await sleep(delayMs);
    }
  }
}
