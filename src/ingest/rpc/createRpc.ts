/**
 * The JSON-RPC transport to one node or several serving the same chain:
 * single requests and JSON-RPC batch arrays, spread over the nodes by a node
 * pool (../http/nodePool.ts: choice by measured latency, a pace per node,
 * failing nodes left out for a while), and retries on transient failures
 * (rate limits, timeouts, 5xx, overloaded backends). Only `ingest/rpc/` talks
 * to nodes; provider quirks stay here.
 *
 * Retry policy, after viem's `buildRequest` and Ponder's `rpc/index.ts`:
 * up to `retries` attempts over all nodes; a failed attempt moves to another
 * node at once, and the failing node waits 150 ms · 2^(its failures − 1)
 * (capped at 10 s, with jitter) or its Retry-After. With one node that is a
 * plain retry with backoff. Errors a retry cannot fix (a revert, an unknown
 * method, bad parameters) fail at once. `eth_getLogs` range refusals are not
 * retried here either: the range splitter (getLogs.ts) owns them.
 */
import http from 'node:http';
import https from 'node:https';
import { getLogsRetryHelper } from '@ponder/utils';
import { errnoCode, messageOf } from '../../utils/errorText.ts';
import { compileSchema } from '../../utils/jsonSchema.ts';
import { parseRetryAfter } from '../../utils/retryAfter.ts';
import { redact } from '../http/fetchWithRetry.ts';
import { createNodePool, type NodePool, type NodeStatus, type Verdict } from '../http/nodePool.ts';
import { asHelperError, RpcError, RpcHttpError, RpcResponseError } from './errors.ts';
import { createArrayExtractor, type ArrayStreamEnd } from './resultBytes.ts';

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export type Settled<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: RpcError };

export interface RpcOptions {
  /** One node's URL, or several nodes serving the same chain. */
  readonly url: string | readonly string[];
  /** HTTP requests in flight at once, per node (the ceiling of its adaptive limit). */
  readonly concurrency?: number;
  /** Requests started per second, per node (the ceiling of its adaptive rate); no cap when absent. */
  readonly maxRate?: number;
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
  /** The first node's URL. */
  readonly url: string;
  readonly urls: readonly string[];
  readonly stats: RpcStats;
  /** Each node's pace and health. */
  nodes(): NodeStatus[];
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
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** One JSON-RPC answer; `result` is the method's, read by its caller. */
const validateResponse = compileSchema<JsonRpcResponse>({
  type: 'object',
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'number' }, message: { type: 'string' } } } },
});

/** The answer as a JSON-RPC response, or undefined when it is none (then it is treated as missing). */
const asResponse = (answer: unknown): JsonRpcResponse | undefined => (validateResponse(answer) ? answer : undefined);

type GetLogsParams = Parameters<typeof getLogsRetryHelper>[0]['params'];
const validateGetLogsParams = compileSchema<GetLogsParams>({
  type: 'array',
  minItems: 1,
  items: [{ type: 'object', required: ['fromBlock', 'toBlock'], properties: { fromBlock: { type: 'string', pattern: '^0x' }, toBlock: { type: 'string', pattern: '^0x' } } }],
});

/** A refused eth_getLogs range: the splitter shrinks it, so retrying it as is would only waste time. */
function isGetLogsRangeError(call: RpcCall, error: RpcError): boolean {
  if (call.method !== 'eth_getLogs' || !validateGetLogsParams(call.params)) return false;
  return getLogsRetryHelper({ params: call.params, error: asHelperError(error) }).shouldRetry;
}

/** One node: its URL, and the keep-alive agent its streamed answers use. */
interface RpcNode {
  readonly url: string;
  readonly target: URL;
  readonly client: typeof http | typeof https;
  readonly agent: http.Agent;
}

/** A batch the node answered with one error object instead of an array: smaller batches will do. */
class BatchRefusedError extends RpcHttpError {}

/** Waits of a failing node: 150 ms doubling to 10 s, ±25 %. */
const NODE_BACKOFF = { baseMs: 150, maxMs: 10_000, jitter: 0.25 } as const;

/** What every request of one transport shares: its counters, its caller's signal, its timeout and its request ids. */
interface Transport {
  readonly stats: RpcStats;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly nextId: () => number;
}

function openNode(url: string): RpcNode {
  // Streamed answers go through node:http, whose socket chunks cost less to read than fetch's web streams.
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return { url, target, client, agent: new client.Agent({ keepAlive: true }) };
}

/** One HTTP POST; throws RpcHttpError for transport failures. */
async function post(t: Transport, node: RpcNode, body: unknown, method: string): Promise<unknown> {
  t.stats.httpRequests++;
  const signal = t.signal ? AbortSignal.any([t.signal, AbortSignal.timeout(t.timeoutMs)]) : AbortSignal.timeout(t.timeoutMs);
  let res: Response;
  try {
    res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  } catch (e) {
    if (t.signal?.aborted) throw t.signal.reason;
    throw transportError(method, e, e instanceof Error && e.name === 'TimeoutError', t.timeoutMs);
  }
  if (res.status !== 200) throw statusError(method, res.status, await res.text().catch(() => ''), res.headers.get('retry-after'));
  try {
    // Parsed from the bytes: a text() first would decode large answers (logs, blocks) twice.
    const answer: unknown = await res.json();
    return answer;
  } catch (e) {
    if (t.signal?.aborted) throw t.signal.reason;
    throw new RpcHttpError(method, { status: res.status, message: `the answer is not JSON (${messageOf(e)})`, cause: e });
  }
}

/** One HTTP POST whose answer is handed to `onChunk` as it arrives; throws RpcHttpError for transport failures. */
async function postStreaming(t: Transport, node: RpcNode, body: unknown, method: string, onChunk: (chunk: Buffer) => void): Promise<void> {
  t.stats.httpRequests++;
  const timeout = AbortSignal.timeout(t.timeoutMs);
  const signal = t.signal ? AbortSignal.any([t.signal, timeout]) : timeout;
  const payload = JSON.stringify(body);
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown) => {
      if (t.signal?.aborted) return reject(t.signal.reason);
      reject(e instanceof RpcError ? e : transportError(method, e, timeout.aborted, t.timeoutMs));
    };
    const req = node.client.request(
      node.target,
      { method: 'POST', agent: node.agent, signal, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
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
            req.destroy(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on('error', fail);
        res.on('close', () => {
          if (res.complete) resolve();
          else fail(new RpcHttpError(method, { message: 'the answer broke off', retryable: true }));
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

/** An answer that was not streamed as an array result: an error answer, or a small result spelled unusually. Writes the array's contents to `sink`; returns their length. */
function writeUnstreamedArray(call: RpcCall, body: Buffer, sink: ArraySink): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new RpcHttpError(call.method, { status: 200, message: `the answer is not JSON (${messageOf(e)})`, cause: e });
  }
  const r = asResponse(parsed);
  if (r && 'result' in r && !r.error) {
    if (!Array.isArray(r.result)) throw new RpcHttpError(call.method, { status: 200, message: `the result is not an array: ${JSON.stringify(r.result).slice(0, 200)}` });
    const text = Buffer.from(JSON.stringify(r.result).slice(1, -1));
    sink.write(text);
    return text.length;
  }
  throw toError(call, r);
}

const ANSWER: Verdict = { kind: 'answer' };

const isFault = (call: RpcCall, e: unknown): e is RpcError => e instanceof RpcError && e.retryable && !(e instanceof BatchRefusedError) && !isGetLogsRangeError(call, e);
const judge = (call: RpcCall) => (e: unknown) => (isFault(call, e) ? verdictOf(e) : ANSWER);

interface ChunkAnswer {
  readonly node: RpcNode;
  readonly startedAt: number;
  readonly answers: (JsonRpcResponse | undefined)[];
}

/** Sends one batch array to the best node and returns each call's raw answer (or throws for the whole chunk). */
async function sendChunk(t: Transport, pool: NodePool<RpcNode>, calls: readonly RpcCall[]): Promise<ChunkAnswer> {
  const first = calls[0];
  if (!first) throw new Error('an empty batch');
  return pool.run(
    async (node) => {
      const startedAt = Date.now();
      t.stats.calls += calls.length;
      if (calls.length === 1) return { node, startedAt, answers: [asResponse(await post(t, node, { jsonrpc: '2.0', id: t.nextId(), method: first.method, params: first.params }, first.method))] };
      const body = calls.map((c) => ({ jsonrpc: '2.0', id: t.nextId(), method: c.method, params: c.params }));
      const answer = await post(t, node, body, `${first.method} ×${calls.length}`);
      if (!Array.isArray(answer)) {
        // Some nodes answer an over-long batch with one error object: use smaller batches from now on.
        const refusal = asResponse(answer)?.error?.message ?? JSON.stringify(answer).slice(0, 200);
        throw new BatchRefusedError(first.method, { message: `batch of ${calls.length} refused: ${refusal}`, retryable: true });
      }
      const byId = new Map<number, JsonRpcResponse>();
      for (const item of answer) {
        const r = asResponse(item);
        if (r && typeof r.id === 'number') byId.set(r.id, r);
      }
      return { node, startedAt, answers: body.map((b) => byId.get(b.id)) };
    },
    // A chunk fails or moves to another node as its first call would.
    judge(first),
  );
}

export function createRpc(opts: RpcOptions): Rpc {
  const urls = typeof opts.url === 'string' ? [opts.url] : [...opts.url];
  const retries = opts.retries ?? 8;
  let batchSize = opts.batchSize ?? 100;
  let nextId = 1;
  const stats: RpcStats = { httpRequests: 0, calls: 0, retries: 0 };
  const t: Transport = { stats, signal: opts.signal, timeoutMs: opts.timeoutMs ?? 60_000, nextId: () => nextId++ };
  const pool = createNodePool(urls.map(openNode), (n) => redact(n.url), {
    concurrency: opts.concurrency ?? 16,
    maxRate: opts.maxRate,
    backoff: NODE_BACKOFF,
    retries,
    signal: opts.signal,
    onRetry: () => {
      stats.retries++;
    },
  });

  async function request<T>(method: string, params: readonly unknown[]): Promise<T> {
    const call = { method, params };
    return pool.run(async (node) => {
      stats.calls++;
      const r = asResponse(await post(t, node, { jsonrpc: '2.0', id: nextId++, method, params }, method));
      if (r && 'result' in r && !r.error) return r.result as T;
      throw toError(call, r);
    }, judge(call));
  }

  async function requestArrayInto(method: string, params: readonly unknown[], open: () => ArraySink): Promise<number> {
    const call = { method, params };
    return pool.run(async (node) => {
      const sink = open();
      try {
        stats.calls++;
        const extractor = createArrayExtractor((b) => sink.write(b));
        await postStreaming(t, node, { jsonrpc: '2.0', id: nextId++, method, params }, method, (c) => extractor.push(c));
        let answer: ArrayStreamEnd;
        try {
          answer = extractor.end();
        } catch (e) {
          throw new RpcHttpError(method, { status: 200, message: messageOf(e), cause: e });
        }
        return answer.kind === 'array' ? answer.bytes : writeUnstreamedArray(call, answer.body, sink);
      } catch (e) {
        sink.abort();
        throw e;
      }
    }, judge(call));
  }

  async function settleAll<T>(calls: readonly RpcCall[]): Promise<Settled<T>[]> {
    const out: Settled<T>[] = new Array(calls.length);
    let pending = calls.map((call, i) => ({ call, i }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      const size = batchSize;
      const chunks: (typeof pending)[] = [];
      for (let k = 0; k < pending.length; k += size) chunks.push(pending.slice(k, k + size));
      const retry: typeof pending = [];
      await Promise.all(
        chunks.map(async (chunk) => {
          try {
            const { node, startedAt, answers } = await sendChunk(
              t,
              pool,
              chunk.map((p) => p.call),
            );
            let fault: Verdict | undefined;
            chunk.forEach((p, k) => {
              const r = answers[k];
              if (r && 'result' in r && !r.error) out[p.i] = { ok: true, result: r.result as T };
              else {
                const error = toError(p.call, r);
                // Some providers rate-limit per item of a batch: only those items go again, after the node's pause.
                if (isFault(p.call, error) && attempt < retries) {
                  retry.push(p);
                  fault ??= verdictOf(error);
                } else out[p.i] = { ok: false, error };
              }
            });
            if (fault && fault.kind !== 'answer') {
              stats.retries++;
              pool.penalize(node, fault, startedAt);
            }
          } catch (e) {
            if (opts.signal?.aborted) throw opts.signal.reason;
            if (e instanceof BatchRefusedError && attempt < retries) {
              if (batchSize > 1) batchSize = Math.max(1, Math.floor(chunk.length / 2));
              retry.push(...chunk);
              return;
            }
            // The node pool has already retried the chunk as far as the policy allows.
            const error = e instanceof RpcError ? e : new RpcHttpError(chunk[0]?.call.method ?? '', { message: String(e), retryable: false, cause: e });
            for (const p of chunk) out[p.i] = { ok: false, error };
          }
        }),
      );
      pending = retry.sort((a, b) => a.i - b.i);
    }
    return out;
  }

  return {
    url: urls[0] ?? '',
    urls,
    stats,
    nodes: () => pool.status(),
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

/** The error of a call whose answer has no result: the node's error object, or the answer missing. */
function toError(call: RpcCall, r: JsonRpcResponse | undefined): RpcError {
  if (!r) return new RpcHttpError(call.method, { message: 'the batch answer has no entry for this call', retryable: true });
  return new RpcResponseError(call.method, r.error ?? { code: -32603, message: 'answer without result' });
}

/** What a retryable error says about the node: it asks us to slow down, it is too slow, or it is failing. */
function verdictOf(e: RpcError): Verdict {
  const retryAfterMs = e.retryAfterMs;
  if (e instanceof RpcHttpError) {
    if (e.timedOut || e.status === 408) return { kind: 'timeout', retryAfterMs };
    if (e.status === 429 || (e.status === 503 && retryAfterMs !== undefined)) return { kind: 'throttled', retryAfterMs };
  }
  if (e instanceof RpcResponseError && (e.rpcCode === 429 || e.rpcCode === -32005 || /rate|too many|capacity|limit/i.test(e.details))) return { kind: 'throttled', retryAfterMs };
  return { kind: 'down', retryAfterMs };
}

/** A request that got no answer: refused, reset, or timed out. */
function transportError(method: string, e: unknown, timedOut: boolean, timeoutMs: number): RpcHttpError {
  return new RpcHttpError(method, { message: timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${messageOf(e)}${causeText(e)}`, cause: e, timedOut });
}

/** An answer with an HTTP status other than 200; its Retry-After, when given, paces the retry. */
function statusError(method: string, status: number, text: string, retryAfterHeader: string | null | undefined): RpcHttpError {
  const retryAfterMs = parseRetryAfter(retryAfterHeader);
  return new RpcHttpError(method, {
    status,
    body: text.slice(0, 2000),
    message: `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`,
    ...(retryAfterMs !== undefined && retryAfterMs > 0 ? { retryAfterMs } : {}),
  });
}

/** What fetch's error says beneath its own message ("fetch failed"): the system error's code, or its cause's message. */
function causeText(e: unknown): string {
  if (!(e instanceof Error) || !e.cause) return '';
  return ` (${errnoCode(e.cause) ?? (e.cause instanceof Error ? e.cause.message : '')})`;
}
