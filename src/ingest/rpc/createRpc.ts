/**
 * The JSON-RPC transport to one node: single requests and JSON-RPC batch
 * arrays, a bound on HTTP requests in flight, and retries with exponential
 * backoff on transient failures (rate limits, timeouts, 5xx, overloaded
 * backends). Only `ingest/rpc/` talks to nodes; provider quirks stay here.
 *
 * Retry policy, after viem's `buildRequest` and Ponder's `rpc/index.ts`:
 * up to `retries` attempts, waiting 150 ms · 2^attempt (capped at 10 s, with
 * jitter) or the node's Retry-After. Errors a retry cannot fix (a revert, an
 * unknown method, bad parameters) fail at once. `eth_getLogs` range refusals
 * are not retried here either: the range splitter (getLogs.ts) owns them.
 */
import http from 'node:http';
import https from 'node:https';
import { getLogsRetryHelper } from '@ponder/utils';
import { Semaphore } from '../../utils/semaphore.ts';
import { asHelperError, RpcError, RpcHttpError, RpcResponseError } from './errors.ts';
import { createArrayExtractor, type ArrayStreamEnd } from './resultBytes.ts';

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export type Settled<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: RpcError };

export interface RpcOptions {
  readonly url: string;
  /** HTTP requests in flight at once. */
  readonly concurrency?: number;
  /** Calls per JSON-RPC batch array; shrinks by itself when the node refuses batches of that size. */
  readonly batchSize?: number;
  readonly retries?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Where one attempt of `requestArrayInto` writes the array's contents (without its brackets). */
export interface ArraySink {
  write(bytes: Buffer): void;
  /** The attempt failed: forget what it wrote. */
  abort(): void;
}

export interface RpcStats {
  httpRequests: number;
  calls: number;
  retries: number;
}

export interface Rpc {
  readonly url: string;
  readonly stats: RpcStats;
  request<T>(method: string, params: readonly unknown[]): Promise<T>;
  /**
   * A call whose result is an array: the JSON text of the array's contents
   * is streamed, unparsed, into a sink opened per attempt (see
   * resultBytes.ts); an attempt that fails aborts its sink. Same retries as
   * `request`. Resolves to the bytes written.
   */
  requestArrayInto(method: string, params: readonly unknown[], open: () => ArraySink): Promise<number>;
  /** Many calls, sent as batch arrays; throws the first error that retries could not cure. */
  requestMany<T>(calls: readonly RpcCall[]): Promise<T[]>;
  /** Many calls; each one settles on its own (for calls that may legitimately fail, such as eth_call). */
  requestManySettled<T>(calls: readonly RpcCall[]): Promise<Settled<T>[]>;
}

interface JsonRpcResponse {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A refused eth_getLogs range: the splitter shrinks it, so retrying it as is would only waste time. */
function isGetLogsRangeError(call: RpcCall, error: RpcError): boolean {
  if (call.method !== 'eth_getLogs') return false;
  const params = call.params as [{ fromBlock: `0x${string}`; toBlock: `0x${string}` }];
  return getLogsRetryHelper({ params, error: asHelperError(error) }).shouldRetry;
}

export function createRpc(opts: RpcOptions): Rpc {
  const url = opts.url;
  const gate = new Semaphore(opts.concurrency ?? 16);
  const retries = opts.retries ?? 8;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let batchSize = opts.batchSize ?? 100;
  let nextId = 1;
  const stats: RpcStats = { httpRequests: 0, calls: 0, retries: 0 };

  /** One HTTP POST; throws RpcHttpError for transport failures. */
  async function post(body: unknown, method: string): Promise<unknown> {
    const release = await gate.acquire();
    try {
      stats.httpRequests++;
      const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
      } catch (e) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        throw transportError(method, e, (e as Error).name === 'TimeoutError', timeoutMs);
      }
      if (res.status !== 200) throw statusError(method, res.status, await res.text().catch(() => ''), res.headers.get('retry-after'));
      try {
        // Parsed from the bytes: a text() first would decode large answers (logs, blocks) twice.
        return (await res.json()) as unknown;
      } catch (e) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        throw new RpcHttpError(method, { status: res.status, message: `the answer is not JSON (${(e as Error).message})`, cause: e });
      }
    } finally {
      release();
    }
  }

  async function backoff(attempt: number, error: RpcError): Promise<void> {
    stats.retries++;
    const base = error.retryAfter !== undefined ? error.retryAfter * 1000 : Math.min(10_000, 150 * 2 ** attempt);
    await sleep(base * (0.75 + Math.random() * 0.5), opts.signal);
  }

  function toError(call: RpcCall, r: JsonRpcResponse | undefined): RpcError {
    if (!r) return new RpcHttpError(call.method, { message: 'the batch answer has no entry for this call', retryable: true });
    return new RpcResponseError(call.method, r.error ?? { code: -32603, message: 'answer without result' });
  }

  const shouldRetry = (call: RpcCall, e: unknown, attempt: number): e is RpcError => e instanceof RpcError && e.retryable && attempt < retries && !isGetLogsRangeError(call, e);

  async function request<T>(method: string, params: readonly unknown[]): Promise<T> {
    const call = { method, params };
    for (let attempt = 0; ; attempt++) {
      try {
        stats.calls++;
        const r = (await post({ jsonrpc: '2.0', id: nextId++, method, params }, method)) as JsonRpcResponse;
        if (r && typeof r === 'object' && 'result' in r && !r.error) return r.result as T;
        throw toError(call, r);
      } catch (e) {
        if (!shouldRetry(call, e, attempt)) throw e;
        await backoff(attempt, e);
      }
    }
  }

  // Streamed answers go through node:http, whose socket chunks cost less to read than fetch's web streams.
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const agent = new client.Agent({ keepAlive: true });

  /** One HTTP POST whose answer is handed to `onChunk` as it arrives; throws RpcHttpError for transport failures. */
  async function postStreaming(body: unknown, method: string, onChunk: (chunk: Buffer) => void): Promise<void> {
    const release = await gate.acquire();
    try {
      stats.httpRequests++;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      const payload = JSON.stringify(body);
      await new Promise<void>((resolve, reject) => {
        const fail = (e: unknown) => {
          if (opts.signal?.aborted) return reject(opts.signal.reason);
          reject(e instanceof RpcError ? e : transportError(method, e, timeout.aborted, timeoutMs));
        };
        const req = client.request(target, { method: 'POST', agent, signal, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
          if (res.statusCode !== 200) {
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => {
              if (parts.length < 8) parts.push(c);
            });
            res.on('end', () => fail(statusError(method, res.statusCode ?? 0, Buffer.concat(parts).toString('utf8'), res.headers['retry-after'])));
            res.on('error', fail);
            return;
          }
          res.on('data', (c: Buffer) => {
            try {
              onChunk(c);
            } catch (e) {
              req.destroy(e as Error);
            }
          });
          res.on('error', fail);
          res.on('close', () => {
            if (res.complete) resolve();
            else fail(new RpcHttpError(method, { message: 'the answer broke off', retryable: true }));
          });
        });
        req.on('error', fail);
        req.end(payload);
      });
    } finally {
      release();
    }
  }

  async function requestArrayInto(method: string, params: readonly unknown[], open: () => ArraySink): Promise<number> {
    const call = { method, params };
    for (let attempt = 0; ; attempt++) {
      const sink = open();
      try {
        stats.calls++;
        const extractor = createArrayExtractor((b) => sink.write(b));
        await postStreaming({ jsonrpc: '2.0', id: nextId++, method, params }, method, (c) => extractor.push(c));
        let answer: ArrayStreamEnd;
        try {
          answer = extractor.end();
        } catch (e) {
          throw new RpcHttpError(method, { status: 200, message: (e as Error).message, cause: e });
        }
        if (answer.kind === 'array') return answer.bytes;
        // Not streamed as an array result: an error answer, or a small result spelled unusually.
        let r: JsonRpcResponse;
        try {
          r = JSON.parse(answer.body.toString('utf8')) as JsonRpcResponse;
        } catch (e) {
          throw new RpcHttpError(method, { status: 200, message: `the answer is not JSON (${(e as Error).message})`, cause: e });
        }
        if (r && typeof r === 'object' && 'result' in r && !r.error) {
          if (!Array.isArray(r.result)) throw new RpcHttpError(method, { status: 200, message: `the result is not an array: ${JSON.stringify(r.result).slice(0, 200)}` });
          const text = Buffer.from(JSON.stringify(r.result).slice(1, -1));
          sink.write(text);
          return text.length;
        }
        throw toError(call, r);
      } catch (e) {
        sink.abort();
        if (!shouldRetry(call, e, attempt)) throw e;
        await backoff(attempt, e);
      }
    }
  }

  /** Sends one batch array and returns each call's raw answer (or an error for the whole chunk). */
  async function sendChunk(calls: readonly RpcCall[]): Promise<(JsonRpcResponse | undefined)[]> {
    if (calls.length === 1) {
      const c = calls[0]!;
      return [(await post({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params }, c.method)) as JsonRpcResponse];
    }
    const first = nextId;
    const body = calls.map((c) => ({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params }));
    const answer = await post(body, `${calls[0]!.method} ×${calls.length}`);
    if (!Array.isArray(answer)) {
      // Some nodes answer an over-long batch with one error object: use smaller batches from now on.
      const r = answer as JsonRpcResponse;
      throw Object.assign(new RpcHttpError(calls[0]!.method, { message: `batch of ${calls.length} refused: ${r?.error?.message ?? JSON.stringify(answer).slice(0, 200)}`, retryable: true }), {
        batchRefused: true,
      });
    }
    const byId = new Map<number, JsonRpcResponse>();
    for (const r of answer as JsonRpcResponse[]) if (typeof r?.id === 'number') byId.set(r.id, r);
    return calls.map((_, i) => byId.get(first + i));
  }

  async function settleAll<T>(calls: readonly RpcCall[]): Promise<Settled<T>[]> {
    const out: Settled<T>[] = new Array(calls.length);
    let pending = calls.map((_, i) => i);
    for (let attempt = 0; pending.length > 0; attempt++) {
      const size = batchSize;
      const chunks: number[][] = [];
      for (let i = 0; i < pending.length; i += size) chunks.push(pending.slice(i, i + size));
      const retry: number[] = [];
      let wait: RpcError | undefined;
      await Promise.all(
        chunks.map(async (idx) => {
          stats.calls += idx.length;
          try {
            const answers = await sendChunk(idx.map((i) => calls[i]!));
            answers.forEach((r, k) => {
              const i = idx[k]!;
              if (r && 'result' in r && !r.error) out[i] = { ok: true, result: r.result as T };
              else {
                const error = toError(calls[i]!, r);
                if (shouldRetry(calls[i]!, error, attempt)) {
                  retry.push(i);
                  wait ??= error;
                } else out[i] = { ok: false, error };
              }
            });
          } catch (e) {
            if ((e as { batchRefused?: boolean }).batchRefused && batchSize > 1) batchSize = Math.max(1, Math.floor(idx.length / 2));
            const error = e instanceof RpcError ? e : new RpcHttpError(calls[idx[0]!]!.method, { message: String(e), retryable: false, cause: e });
            if (opts.signal?.aborted) throw opts.signal.reason;
            if (shouldRetry(calls[idx[0]!]!, error, attempt)) {
              retry.push(...idx);
              wait ??= error;
            } else for (const i of idx) out[i] = { ok: false, error };
          }
        }),
      );
      pending = retry.sort((a, b) => a - b);
      if (pending.length > 0) await backoff(attempt, wait!);
    }
    return out;
  }

  return {
    url,
    stats,
    request,
    requestArrayInto,
    async requestMany<T>(calls: readonly RpcCall[]): Promise<T[]> {
      const settled = await settleAll<T>(calls);
      return settled.map((s) => {
        if (!s.ok) throw s.error;
        return s.result;
      });
    },
    requestManySettled: settleAll,
  };
}

/** A request that got no answer: refused, reset, or timed out. */
function transportError(method: string, e: unknown, timedOut: boolean, timeoutMs: number): RpcHttpError {
  return new RpcHttpError(method, { message: timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${(e as Error).message}${causeText(e)}`, cause: e });
}

/** An answer with an HTTP status other than 200; its Retry-After, when given, paces the retry. */
function statusError(method: string, status: number, text: string, retryAfterHeader: string | null | undefined): RpcHttpError {
  const retryAfter = Number(retryAfterHeader);
  return new RpcHttpError(method, {
    status,
    body: text.slice(0, 2000),
    message: `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfter } : {}),
  });
}

function causeText(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message ?? ''})` : '';
}
