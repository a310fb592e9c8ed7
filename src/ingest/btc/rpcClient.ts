/**
 * Bitcoin Core JSON-RPC over HTTP: the calls the Bitcoin adapter needs, to
 * one node or several serving the same chain. Credentials come in each URL
 * (http://user:pass@host:8332) and travel as HTTP basic auth.
 */
import { SourceError } from '../../errors/chainqError.ts';
import { compileSchema, describeSchemaError, parseWith, type Validator } from '../../utils/jsonSchema.ts';
import { createHttpNodePool, fetchOnce, HttpError, redact, type HttpOptions } from '../http/fetchWithRetry.ts';
import type { NodeStatus, Verdict } from '../http/nodePool.ts';
import { judgeRetryable, RetryableError } from '../http/retry.ts';

export interface BtcScriptPubKey {
  readonly address?: string;
  readonly type?: string;
}

export interface BtcVin {
  readonly coinbase?: string;
  readonly txid?: string;
  readonly vout?: number;
  /** Present with getblock verbosity 3 (Bitcoin Core ≥ 23). */
  readonly prevout?: { readonly value: number; readonly scriptPubKey: BtcScriptPubKey };
}

export interface BtcVout {
  readonly value: number;
  readonly n: number;
  readonly scriptPubKey: BtcScriptPubKey;
}

export interface BtcTx {
  readonly txid: string;
  readonly vin: readonly BtcVin[];
  readonly vout: readonly BtcVout[];
}

/** `getblock <hash> 3` as bitcoind answers it (decode.ts turns it into a BtcBlock). */
export interface BtcRpcBlock {
  readonly hash: string;
  readonly height: number;
  readonly time: number;
  readonly previousblockhash?: string;
  /** The header's transaction count, to check `tx` against. */
  readonly nTx?: number;
  readonly tx: readonly BtcTx[];
}

export interface BtcRpcClient {
  readonly description: string;
  /** Each node's pace and health (several nodes serve one client; see nodePool.ts). */
  nodes(): NodeStatus[];
  getBlockCount(): Promise<number>;
  getBlockHashes(heights: readonly number[]): Promise<string[]>;
  /** getblock <hash> 3: transactions with their inputs' prevouts. */
  getBlock(hash: string): Promise<BtcRpcBlock>;
}

interface RpcAnswer<T> {
  readonly result?: T | null;
  readonly error?: { readonly code: number; readonly message: string } | null;
  readonly id: number | string | null;
}

const answer = {
  type: 'object',
  required: ['id'],
  properties: { error: { anyOf: [{ type: 'null' }, { type: 'object', required: ['code', 'message'], properties: { code: { type: 'number' }, message: { type: 'string' } } }] } },
};
const validateAnswer = compileSchema<RpcAnswer<unknown>>(answer);
/** A batch's answers; one answer object when bitcoind refused the batch as a whole. */
const validateAnswerOrBatch = compileSchema<RpcAnswer<unknown>[] | RpcAnswer<unknown>>({ anyOf: [{ type: 'array', items: answer }, answer] });

/** Each method's result; a block's transactions are checked where they are decoded (decode.ts). */
const RESULTS = {
  getblockcount: compileSchema<number>({ type: 'integer', minimum: 0 }),
  getblockhash: compileSchema<string>({ type: 'string' }),
  getblock: compileSchema<BtcRpcBlock>({
    type: 'object',
    required: ['hash', 'height', 'time', 'tx'],
    properties: {
      hash: { type: 'string' },
      height: { type: 'integer' },
      time: { type: 'number' },
      previousblockhash: { type: 'string' },
      nTx: { type: 'integer' },
      tx: { type: 'array', items: { type: 'object' } },
    },
  }),
};

/** bitcoind is still loading (RPC_IN_WARMUP): worth waiting for. */
const RPC_IN_WARMUP = -28;

/** A node still loading its chain: another node, or this one a little later, will answer. */
class WarmupError extends SourceError {}
const isWarmup = (e: unknown) => e instanceof WarmupError;

export class BtcRpcError extends SourceError {
  /** bitcoind's error code (`code` is the error's kind, as every internal error's). */
  readonly rpcCode: number;
  constructor(method: string, code: number, message: string) {
    super(`bitcoind ${method}: ${message} (code ${code})`);
    this.rpcCode = code;
  }
}

interface BtcNode {
  readonly endpoint: string;
  readonly auth: string | undefined;
  /** The URL without credentials, for messages. */
  readonly label: string;
}

/** fetch() refuses URLs with credentials: they travel as a basic auth header. */
function nodeOf(url: string): BtcNode {
  const u = new URL(url);
  const auth = u.username || u.password ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}` : undefined;
  u.username = '';
  u.password = '';
  return { endpoint: u.toString(), auth, label: redact(url) };
}

/** A node's fault (an outage, a rate limit, a node still starting) moves the call to another node; anything else is the answer. */
const judge = (e: unknown): Verdict => (isWarmup(e) ? { kind: 'down' } : judgeRetryable(e));

/** `url`: one bitcoind, or several serving the same chain (requests spread over them, a failing one left out for a while). */
export function createBtcRpcClient(url: string | readonly string[], http: HttpOptions, signal?: AbortSignal): BtcRpcClient {
  const nodes = (typeof url === 'string' ? [url] : url).map(nodeOf);
  const pool = createHttpNodePool(
    nodes.map((n) => n.endpoint),
    http,
    signal,
  );
  const byEndpoint = new Map(nodes.map((n) => [n.endpoint, n]));
  let nextId = 1;
  // bitcoind answers an RPC error with HTTP 500 (or 404 for an unknown method) and a JSON body: an answer, not an outage.
  const opts: HttpOptions = { ...http, isAnswer: (status, body) => status === 500 && /"error"\s*:\s*\{/.test(body) };

  async function post<T>(node: BtcNode, body: unknown, label: string, validate: Validator<T>): Promise<T> {
    return fetchOnce(
      node.endpoint,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(node.auth ? { authorization: node.auth } : {}) },
        body: JSON.stringify(body),
      },
      opts,
      async (res) => {
        const text = await res.text();
        if (res.status === 401 || res.status === 403) throw new Error(`bitcoind at ${node.label} refused the credentials (HTTP ${res.status}): check user:pass in --rpc`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          if (!res.ok) throw new HttpError(node.endpoint, res.status, text);
          throw new RetryableError(`bitcoind ${label}: invalid JSON answer (${text.length} bytes)`);
        }
        return parseWith(validate, parsed, (e) => new SourceError(`bitcoind ${label}: an answer of another shape (${e ? describeSchemaError('answer', e) : 'invalid'})`));
      },
    );
  }

  const unwrap = <T>(method: string, a: RpcAnswer<unknown>, result: Validator<T>): T => {
    if (a.error) {
      if (a.error.code === RPC_IN_WARMUP) throw new WarmupError(`bitcoind ${method}: ${a.error.message}`);
      throw new BtcRpcError(method, a.error.code, a.error.message);
    }
    return parseWith(result, a.result, (e) => new SourceError(`bitcoind ${method}: a result of another shape (${e ? describeSchemaError('result', e) : 'invalid'})`));
  };

  const run = <T>(attempt: (node: BtcNode) => Promise<T>): Promise<T> =>
    pool.run((endpoint) => {
      const node = byEndpoint.get(endpoint);
      if (!node) throw new Error(`unknown node ${endpoint}`);
      return attempt(node);
    }, judge);

  async function call<T>(method: keyof typeof RESULTS, params: unknown[], result: Validator<T>): Promise<T> {
    return run(async (node) => unwrap(method, await post(node, { jsonrpc: '1.0', id: nextId++, method, params }, method, validateAnswer), result));
  }

  return {
    description: nodes.map((n) => n.label).join(', '),
    nodes: () => pool.status(),
    getBlockCount: () => call('getblockcount', [], RESULTS.getblockcount),
    async getBlockHashes(heights) {
      if (heights.length === 0) return [];
      return run(async (node) => {
        const first = nextId;
        nextId += heights.length;
        const answers = await post(
          node,
          heights.map((h, i) => ({ jsonrpc: '1.0', id: first + i, method: 'getblockhash', params: [h] })),
          'getblockhash',
          validateAnswerOrBatch,
        );
        if (!Array.isArray(answers)) throw new Error('bitcoind getblockhash: a batch request did not get a batch answer');
        const byId = new Map(answers.map((a) => [Number(a.id), a]));
        return heights.map((h, i) => {
          const a = byId.get(first + i);
          if (!a) throw new Error(`bitcoind getblockhash ${h}: no answer in the batch`);
          return unwrap('getblockhash', a, RESULTS.getblockhash);
        });
      });
    },
    getBlock: (hash) => call('getblock', [hash, 3], RESULTS.getblock),
  };
}
