/**
 * Retries with exponential backoff for ingestion transports that talk to one
 * endpoint (archive downloads, exchange APIs); node APIs go through a node
 * pool (nodePool.ts), which retries on another node first. The policy is
 * explicit data so that the CLI can expose it and tests can record the waits
 * instead of sleeping.
 */
import { type Backoff, backoffDelay } from '../../utils/backoff.ts';
import { sleep as abortableSleep } from '../../utils/sleep.ts';
import type { NodeFault, Verdict } from './nodePool.ts';
import { SourceError } from '../../errors/chainqError.ts';

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

/** The policy's waits as the shared backoff formula takes them. */
export const backoffOf = (policy: RetryPolicy): Backoff => ({ baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs });

/** An error worth retrying: a network failure, a timeout, HTTP 429 or a transient 5xx. */
export class RetryableError extends SourceError {
  /** A wait the server asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** What the failure says about the server: it asks us to slow down, it is too slow, or it is failing. */
  readonly fault: NodeFault;
  constructor(message: string, opts: { cause?: unknown; retryAfterMs?: number | undefined; fault?: NodeFault } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retryAfterMs = opts.retryAfterMs;
    this.fault = opts.fault ?? 'down';
  }
}

/** A node pool's reading of errors: RetryableError is the node's fault, anything else its answer. */
export function judgeRetryable(e: unknown): Verdict {
  return e instanceof RetryableError ? { kind: e.fault, retryAfterMs: e.retryAfterMs } : { kind: 'answer' };
}

/**
 * Runs `fn` until it succeeds, retrying only RetryableError (and errors that
 * `isRetryable` accepts) up to `policy.retries` times.
 */
export async function withRetry<T>(policy: RetryPolicy, fn: (attempt: number) => Promise<T>, isRetryable: (e: unknown) => boolean = (e) => e instanceof RetryableError): Promise<T> {
  const sleep = policy.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (attempt >= policy.retries || !isRetryable(e)) throw e;
      const delayMs = backoffDelay(backoffOf(policy), attempt + 1, e instanceof RetryableError ? e.retryAfterMs : undefined);
      policy.onRetry?.({ attempt: attempt + 1, delayMs, reason: e instanceof Error ? e.message : String(e) });
      await sleep(delayMs);
    }
  }
}
