/**
 * The java-tron full node HTTP API (port 8090 by default), the calls the
 * Tron adapter needs. Shapes follow the node's JSON with `visible` left at
 * its default (false): addresses are hex `41…`, amounts integers in sun.
 */
import { SourceError } from '../../errors/chainqError.ts';
import { compileSchema, describeSchemaError, parseWith, type Validator } from '../../utils/jsonSchema.ts';
import { createHttpNodePool, postJsonOnce, redact, type HttpOptions } from '../http/fetchWithRetry.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import { judgeRetryable } from '../http/retry.ts';

export interface TronContract {
  readonly type: string;
  readonly parameter?: { readonly value?: Record<string, unknown>; readonly type_url?: string };
}

export interface TronTransaction {
  readonly txID: string;
  readonly ret?: readonly { readonly contractRet?: string }[];
  readonly raw_data?: { readonly contract?: readonly TronContract[]; readonly timestamp?: number };
}

export interface TronBlock {
  readonly blockID: string;
  readonly block_header: { readonly raw_data: { readonly number?: number; readonly timestamp: number; readonly parentHash: string } };
  readonly transactions?: readonly TronTransaction[];
}

export interface TronLog {
  /** 20-byte contract address, hex without the 41 prefix. */
  readonly address: string;
  readonly topics?: readonly string[];
  readonly data?: string;
}

export interface TronTransactionInfo {
  readonly id: string;
  readonly blockNumber?: number;
  readonly blockTimeStamp?: number;
  readonly contract_address?: string;
  readonly result?: string;
  readonly receipt?: { readonly result?: string };
  readonly log?: readonly TronLog[];
}

/** The most blocks getblockbylimitnext returns per call. */
export const TRON_BLOCKS_PER_CALL = 100;

export interface TronNodeClient {
  /** The first node's base URL. */
  readonly url: string;
  /** Each node's pace and health (several nodes serve one client; see nodePool.ts). */
  nodes(): NodeStatus[];
  getNowBlockNumber(): Promise<number>;
  /** Blocks lo..hi inclusive (any count; split into calls of 100). */
  getBlocks(lo: number, hi: number): Promise<TronBlock[]>;
  getTransactionInfo(num: number): Promise<TronTransactionInfo[]>;
  getBlockHash(num: number): Promise<string>;
}

const obj = { type: 'object' } as const;
/** Any JSON: a node's answer is first looked at for its `Error` field. */
const anyJson = compileSchema<unknown>({});
const hasError = compileSchema<{ readonly Error: unknown }>({ type: 'object', required: ['Error'] });
const tronBlock = {
  type: 'object',
  required: ['blockID', 'block_header'],
  properties: {
    blockID: { type: 'string' },
    block_header: {
      type: 'object',
      required: ['raw_data'],
      properties: { raw_data: { type: 'object', required: ['timestamp', 'parentHash'], properties: { number: { type: 'integer' }, timestamp: { type: 'number' }, parentHash: { type: 'string' } } } },
    },
    // Each transaction is checked where it is decoded (decode.ts), against the block's own count.
    transactions: { type: 'array', items: obj },
  },
};
/** The node's answers; a block the node does not have is `{}`. */
const ANSWERS = {
  getnowblock: compileSchema<Partial<TronBlock>>(obj),
  getblockbylimitnext: compileSchema<{ readonly block?: TronBlock[] }>({ type: 'object', properties: { block: { type: 'array', items: tronBlock } } }),
  // An object (`{}`) when the block has no transaction.
  gettransactioninfobyblocknum: compileSchema<TronTransactionInfo[] | Readonly<Record<string, unknown>>>({ anyOf: [{ type: 'array', items: obj }, obj] }),
  getblockbynum: compileSchema<Partial<TronBlock>>({ type: 'object', properties: { blockID: { type: 'string' } } }),
};

/** `url`: one full node's base URL, or several serving the same chain (requests spread over them, a failing one left out for a while). */
export function createTronNodeClient(url: string | readonly string[], http: HttpOptions, signal?: AbortSignal): TronNodeClient {
  const bases = (typeof url === 'string' ? [url] : url).map((u) => u.replace(/\/+$/, ''));
  const pool = createHttpNodePool(bases, http, signal);
  const call = async <T>(method: keyof typeof ANSWERS, body: unknown, validate: Validator<T>): Promise<T> => {
    // Amounts are int64: keep ones beyond 2^53 exact by reading them as strings.
    const out = await pool.run((base) => postJsonOnce(`${base}/wallet/${method}`, body, { ...http, rewrite: quoteBigAmounts }, anyJson), judgeRetryable);
    if (hasError(out)) throw new SourceError(`Tron node ${method}: ${String(out.Error)}`);
    return parseWith(validate, out, (e) => new SourceError(`Tron node ${method}: an answer of another shape (${e ? describeSchemaError('answer', e) : 'invalid'})`));
  };
  return {
    url: redact(bases[0] ?? ''),
    nodes: () => pool.status(),
    async getNowBlockNumber() {
      const b = await call('getnowblock', {}, ANSWERS.getnowblock);
      const n = b.block_header?.raw_data?.number;
      if (typeof n !== 'number') throw new Error('Tron node getnowblock: no block number in the answer');
      return n;
    },
    async getBlocks(lo, hi) {
      const out: TronBlock[] = [];
      for (let start = lo; start <= hi; start += TRON_BLOCKS_PER_CALL) {
        const end = Math.min(hi, start + TRON_BLOCKS_PER_CALL - 1);
        // endNum is exclusive.
        const r = await call('getblockbylimitnext', { startNum: start, endNum: end + 1 }, ANSWERS.getblockbylimitnext);
        out.push(...(r.block ?? []));
      }
      return out.sort((a, b) => blockNumber(a) - blockNumber(b));
    },
    async getTransactionInfo(num) {
      const r = await call('gettransactioninfobyblocknum', { num }, ANSWERS.gettransactioninfobyblocknum);
      return Array.isArray(r) ? r : [];
    },
    async getBlockHash(num) {
      const b = await call('getblockbynum', { num }, ANSWERS.getblockbynum);
      if (!b.blockID) throw new Error(`Tron node getblockbynum ${num}: no such block`);
      return b.blockID;
    },
  };
}

const quoteBigAmounts = (text: string) => text.replace(/"amount":\s*(\d{16,})/g, '"amount":"$1"');

/** Block 0 omits `number` in its header. */
export const blockNumber = (b: TronBlock): number => b.block_header.raw_data.number ?? 0;
