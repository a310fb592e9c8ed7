/**
 * The node calls ingestion makes, with their wire shapes. Block-scoped data
 * (traces, receipts) is fetched by block hash, never by number, so that a
 * reorg between two calls cannot mix two chains (Ponder's rule).
 */
import type { Rpc, Settled } from './createRpc.ts';
import { isUnsupportedMethod } from './errors.ts';
import type { CallFrame, FlatTrace, Hex, RpcReceipt, RpcTransaction, TxTrace } from '../../protocols/evmNode.ts';

export type { CallFrame, FlatTrace, RpcReceipt, RpcTransaction, TxTrace };

export interface RpcBlock {
  readonly number: Hex;
  readonly hash: Hex;
  readonly parentHash: Hex;
  readonly timestamp: Hex;
  /** The bloom of every log of the block (absent on nodes that leave it out). */
  readonly logsBloom?: Hex;
  /** Hashes, or full transactions when asked for. */
  readonly transactions: readonly (Hex | RpcTransaction)[];
}

/** How a node gives call traces: `trace_block` (flat) or `debug_traceBlockByHash` with callTracer (nested). */
export type TraceSource = 'trace_block' | 'debug_trace';

const toHex = (n: number): Hex => `0x${n.toString(16)}`;

export async function getChainId(rpc: Rpc): Promise<number> {
  return Number(BigInt(await rpc.request<Hex>('eth_chainId', [])));
}

export async function getBlockNumber(rpc: Rpc): Promise<number> {
  return Number(BigInt(await rpc.request<Hex>('eth_blockNumber', [])));
}

/** Blocks by number, in the order asked; null where the node has no such block (yet). */
export async function getBlocks(rpc: Rpc, numbers: readonly number[], fullTransactions: boolean | ((n: number) => boolean)): Promise<(RpcBlock | null)[]> {
  const full = typeof fullTransactions === 'function' ? fullTransactions : () => fullTransactions;
  return rpc.requestMany<RpcBlock | null>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toHex(n), full(n)] })));
}

export async function getBlock(rpc: Rpc, number: number): Promise<RpcBlock | null> {
  return rpc.request<RpcBlock | null>('eth_getBlockByNumber', [toHex(number), false]);
}

/** callTracer traces of every transaction of each block, by block hash. */
export async function traceBlocks(rpc: Rpc, hashes: readonly Hex[]): Promise<TxTrace[][]> {
  return rpc.requestMany<TxTrace[]>(hashes.map((h) => ({ method: 'debug_traceBlockByHash', params: [h, { tracer: 'callTracer' }] })));
}

/** Flat traces of each block (by number; each trace names its block hash, which the caller checks). */
export async function traceBlocksFlat(rpc: Rpc, numbers: readonly number[]): Promise<FlatTrace[][]> {
  return rpc.requestMany<FlatTrace[]>(numbers.map((n) => ({ method: 'trace_block', params: [toHex(n)] })));
}

/**
 * The cheapest call-trace method the node answers: `trace_block` (about 2.5×
 * cheaper than callTracer on anvil), else `debug_traceBlockByHash` with
 * callTracer (geth), else null. A refusal other than "unknown method" is an error.
 */
export async function detectTraceSource(rpc: Rpc, block: { number: number; hash: Hex }, only?: TraceSource): Promise<TraceSource | null> {
  const probes: [TraceSource, string, unknown[]][] = [
    ['trace_block', 'trace_block', [toHex(block.number)]],
    ['debug_trace', 'debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }]],
  ];
  for (const [source, method, params] of probes) {
    if (only && source !== only) continue;
    try {
      await rpc.request(method, params);
      return source;
    } catch (e) {
      if (!isUnsupportedMethod(e)) throw e;
    }
  }
  return null;
}

export interface ReceiptSource {
  /** Receipts of the given blocks' transactions, by block; `txHashes` are the blocks' transactions in order. */
  receipts(blocks: readonly { hash: Hex; txHashes: readonly Hex[] }[]): Promise<RpcReceipt[][]>;
}

/**
 * eth_getBlockReceipts (one call per block), falling back for good to
 * eth_getTransactionReceipt per transaction on the first refusal, as Ponder does.
 */
export function createReceiptSource(rpc: Rpc): ReceiptSource {
  let blockReceipts = true;
  return {
    async receipts(blocks) {
      if (blockReceipts) {
        try {
          return await rpc.requestMany<RpcReceipt[]>(blocks.map((b) => ({ method: 'eth_getBlockReceipts', params: [b.hash] })));
        } catch (e) {
          if (!isUnsupportedMethod(e)) throw e;
          blockReceipts = false;
        }
      }
      const flat = blocks.flatMap((b) => b.txHashes);
      const all = await rpc.requestMany<RpcReceipt>(flat.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
      let k = 0;
      return blocks.map((b) => b.txHashes.map(() => all[k++]!));
    },
  };
}

/** eth_call at the latest block; each call settles on its own (a token may not implement the function). */
export async function callMany(rpc: Rpc, calls: readonly { to: Hex; data: Hex }[]): Promise<Settled<Hex>[]> {
  return rpc.requestManySettled<Hex>(calls.map((c) => ({ method: 'eth_call', params: [{ to: c.to, data: c.data }, 'latest'] })));
}
