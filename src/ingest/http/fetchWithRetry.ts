/**
 * HTTP for ingestion: the built-in fetch, a per-attempt timeout, and retries
 * with backoff on what is transient (network errors, timeouts, 408, 425, 429,
 * 5xx other than 501/505). Anything else is the caller's to judge, such as a
 * 404 meaning "this archive file does not exist".
 */
import { describeSchemaError, parseWith, type Validator } from '../../utils/jsonSchema.ts';
import { parseRetryAfter } from '../../utils/retryAfter.ts';
import { createNodePool, type NodePool } from './nodePool.ts';
import { backoffOf, RetryableError, withRetry, type RetryPolicy } from './retry.ts';
import { SourceError } from '../../errors/chainqError.ts';

export interface HttpOptions {
  readonly retry: RetryPolicy;
  /** Node APIs: requests in flight per node at most (default 64, halved on each rate limit or timeout, regained after successes). */
  readonly nodeConcurrency?: number | undefined;
  /** Node APIs: requests started per second per node at most (default: no cap; halved on each rate limit or timeout, regained after successes). */
  readonly maxRate?: number | undefined;
  /** Per attempt, until the response headers arrive; the body read is the caller's (and is retried with it). */
  readonly timeoutMs?: number;
  /** A retryable status whose body is a definitive answer after all, handed to `read` instead of retried. */
  readonly isAnswer?: (status: number, body: string) => boolean;
}

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 425 || s === 429 || (s >= 500 && s !== 501 && s !== 505);

export class HttpError extends SourceError {
  readonly status: number;
  constructor(url: string, status: number, body: string) {
    super(`${redact(url)} answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`);
    this.status = status;
  }
}

/** The URL without credentials, for messages and logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * fetch() that retries transient failures. Resolves with the response for any
 * status that is not retryable (2xx, 404…); `read` consumes the body inside
 * the retry, so a connection cut mid-body is retried too.
 */
export async function fetchWithRetry<T>(url: string, init: RequestInit, opts: HttpOptions, read: (res: Response) => Promise<T>): Promise<T> {
  return withRetry(opts.retry, () => fetchOnce(url, init, opts, read));
}

/** One attempt of fetchWithRetry: a transient failure throws RetryableError, saying whether the server throttled, was slow or failed. */
export async function fetchOnce<T>(url: string, init: RequestInit, opts: Omit<HttpOptions, 'retry'>, read: (res: Response) => Promise<T>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
  } catch (e) {
    throw new RetryableError(`${redact(url)}: ${describeFetchError(e)}`, { cause: e, fault: e instanceof Error && e.name === 'TimeoutError' ? 'timeout' : 'down' });
  }
  if (RETRYABLE_STATUS(res.status)) {
    const body = await res.text().catch(() => '');
    // Some servers answer a definitive error with a 5xx (bitcoind: an RPC error is HTTP 500).
    if (opts.isAnswer?.(res.status, body)) return read(new Response(body, { status: res.status, headers: res.headers }));
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    throw new RetryableError(`${redact(url)} answered HTTP ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`, {
      retryAfterMs,
      fault: res.status === 429 || (res.status === 503 && retryAfterMs !== undefined) ? 'throttled' : res.status === 408 ? 'timeout' : 'down',
    });
  }
  try {
    return await read(res);
  } catch (e) {
    // A body cut short is transient; a parse error of a complete body is not.
    if (isBodyReadFailure(e)) throw new RetryableError(`${redact(url)}: reading the response failed: ${describeFetchError(e)}`, { cause: e });
    throw e;
  }
}

type PostJsonOptions = Omit<HttpOptions, 'retry'> & { headers?: Record<string, string>; rewrite?: (text: string) => string };

/**
 * POSTs JSON and parses the JSON answer as `validate` describes it; non-2xx
 * answers that are not retryable throw HttpError, an answer of another shape
 * a SourceError naming the field.
 */
export async function postJson<T>(url: string, body: unknown, opts: HttpOptions & PostJsonOptions, validate: Validator<T>): Promise<T> {
  return withRetry(opts.retry, () => postJsonOnce(url, body, opts, validate));
}

/** One attempt of postJson (for a node pool, which retries on another node). */
export async function postJsonOnce<T>(url: string, body: unknown, opts: PostJsonOptions, validate: Validator<T>): Promise<T> {
  return fetchOnce(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
      body: JSON.stringify(body),
    },
    opts,
    async (res) => {
      const text = await res.text();
      if (!res.ok) throw new HttpError(url, res.status, text);
      let doc: unknown;
      try {
        doc = JSON.parse(opts.rewrite ? opts.rewrite(text) : text);
      } catch {
        // Truncated JSON from a proxy that cut the connection: worth another try.
        throw new RetryableError(`${redact(url)} answered invalid JSON (${text.length} bytes): ${text.slice(0, 120)}`);
      }
      return parseWith(validate, doc, (e) => new SourceError(`${redact(url)} answered JSON of another shape: ${e ? describeSchemaError('answer', e) : 'invalid'}`));
    },
  );
}

/**
 * The node pool of an HTTP node API given one or several base URLs: retries,
 * backoff and waits from the retry policy, pace from the node options.
 */
export function createHttpNodePool(urls: readonly string[], http: HttpOptions, signal?: AbortSignal): NodePool<string> {
  return createNodePool(urls, redact, {
    concurrency: http.nodeConcurrency ?? 64,
    maxRate: http.maxRate,
    backoff: backoffOf(http.retry),
    retries: http.retry.retries,
    signal,
    ...(http.retry.sleep ? { sleep: http.retry.sleep } : {}),
    ...(http.retry.onRetry ? { onRetry: http.retry.onRetry } : {}),
  });
}

function describeFetchError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause: unknown = e.cause;
  const code = cause && typeof cause === 'object' && 'code' in cause ? ` (${String(cause.code)})` : '';
  return `${e.name === 'TimeoutError' ? 'timed out' : e.message}${code}`;
}

function isBodyReadFailure(e: unknown): boolean {
  if (e instanceof RetryableError) return false;
  if (!(e instanceof Error)) return false;
  return e.name === 'TimeoutError' || e.name === 'AbortError' || /terminated|socket|ECONNRESET|premature|aborted/i.test(`${e.message} ${String(e.cause ?? '')}`);
}
