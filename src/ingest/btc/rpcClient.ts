/**
 * Bitcoin Core JSON-RPC over HTTP: the calls the Bitcoin adapter needs.
 * Credentials come in the URL (http://user:pass@host:8332) and travel as
 * HTTP basic auth, since fetch() refuses URLs with credentials.
 */
import { fetchWithRetry, HttpError, redact, type HttpOptions } from '../http/fetchWithRetry.ts';
import { RetryableError, withRetry } from '../http/retry.ts';

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
  getBlockCount(): Promise<number>;
  getBlockHashes(heights: readonly number[]): Promise<string[]>;
  /** getblock <hash> 3: transactions with their inputs' prevouts. */
  getBlock(hash: string): Promise<BtcRpcBlock>;
}

interface RpcAnswer<T> {
  readonly result: T | null;
  readonly error: { readonly code: number; readonly message: string } | null;
  readonly id: number | string | null;
}

/** bitcoind is still loading (RPC_IN_WARMUP): worth waiting for. */
const RPC_IN_WARMUP = -28;

/** Transport retries happen inside fetchWithRetry; this layer only waits out a node that is starting. */
class WarmupError extends Error {}
const isWarmup = (e: unknown) => e instanceof WarmupError;

export class BtcRpcError extends Error {
  readonly code: number;
  constructor(method: string, code: number, message: string) {
    super(`bitcoind ${method}: ${message} (code ${code})`);
    this.name = 'BtcRpcError';
    this.code = code;
  }
}

export function createBtcRpcClient(url: string, http: HttpOptions): BtcRpcClient {
  const u = new URL(url);
  const auth = u.username || u.password ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}` : undefined;
  u.username = '';
  u.password = '';
  const endpoint = u.toString();
  let nextId = 1;
  // bitcoind answers an RPC error with HTTP 500 (or 404 for an unknown method) and a JSON body: an answer, not an outage.
  const opts: HttpOptions = { ...http, isAnswer: (status, body) => status === 500 && /"error"\s*:\s*\{/.test(body) };

  async function post<T>(body: unknown, label: string): Promise<T> {
    return fetchWithRetry(
      endpoint,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(body),
      },
      opts,
      async (res) => {
        const text = await res.text();
        if (res.status === 401 || res.status === 403) throw new Error(`bitcoind at ${redact(url)} refused the credentials (HTTP ${res.status}): check user:pass in --rpc`);
        let parsed: T;
        try {
          parsed = JSON.parse(text) as T;
        } catch {
          if (!res.ok) throw new HttpError(endpoint, res.status, text);
          throw new RetryableError(`bitcoind ${label}: invalid JSON answer (${text.length} bytes)`);
        }
        return parsed;
      },
    );
  }

  const unwrap = <T>(method: string, a: RpcAnswer<T>): T => {
    if (a.error) {
      if (a.error.code === RPC_IN_WARMUP) throw new WarmupError(`bitcoind ${method}: ${a.error.message}`);
      throw new BtcRpcError(method, a.error.code, a.error.message);
    }
    return a.result as T;
  };

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    // Warm-up errors are retried like outages.
    return withRetry(http.retry, async () => unwrap<T>(method, await post<RpcAnswer<T>>({ jsonrpc: '1.0', id: nextId++, method, params }, method)), isWarmup);
  }

  return {
    description: redact(url),
    getBlockCount: () => call<number>('getblockcount', []),
    async getBlockHashes(heights) {
      if (heights.length === 0) return [];
      return withRetry(
        http.retry,
        async () => {
          const first = nextId;
          nextId += heights.length;
          const answers = await post<RpcAnswer<string>[]>(
            heights.map((h, i) => ({ jsonrpc: '1.0', id: first + i, method: 'getblockhash', params: [h] })),
            'getblockhash',
          );
          if (!Array.isArray(answers)) throw new Error('bitcoind getblockhash: a batch request did not get a batch answer');
          const byId = new Map(answers.map((a) => [Number(a.id), a]));
          return heights.map((h, i) => {
            const a = byId.get(first + i);
            if (!a) throw new Error(`bitcoind getblockhash ${h}: no answer in the batch`);
            return unwrap('getblockhash', a);
          });
        },
        isWarmup,
      );
    },
    getBlock: (hash) => call<BtcRpcBlock>('getblock', [hash, 3]),
  };
}
