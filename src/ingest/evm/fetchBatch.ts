/**
 * Everything one block batch needs from the node, fetched together:
 * 1. the logs of every planned dataset, in one eth_getLogs pass;
 * 2. every block header of the range (time, hash, parent hash), with full
 *    transactions where a decoder needs a sender or native transfers need values;
 * 3. call traces (or receipts, without traces) for native transfers;
 * 4. metadata of tokens not seen before.
 * The pieces are checked against each other: every log's block hash must be
 * the header's, and the headers must chain. A mismatch means the chain moved
 * while we read it; the batch is then fetched again.
 */
import { getBlocks, traceBlocks, traceBlocksFlat, type ReceiptSource, type RpcBlock, type RpcTransaction, type TraceSource } from '../rpc/actions.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import type { Hex, LogFetcher, RpcLog } from '../rpc/getLogs.ts';
import { transfersOfBlock, type NativeTransfer } from './decoders/native.ts';
import type { DatasetPlan } from './planDatasets.ts';
import type { TokenBook } from './tokenBook.ts';
import { hexNumber, type BlockInfo } from './types.ts';

export interface FetchContext {
  readonly rpc: Rpc;
  readonly logs: LogFetcher;
  readonly plan: DatasetPlan;
  /** Native transfers from call traces (by this method) or, when null, from transaction values and receipts. */
  readonly traces: TraceSource | null;
  readonly receipts: ReceiptSource;
  readonly tokens: TokenBook;
}

export interface FetchedBatch {
  readonly lo: number;
  readonly hi: number;
  readonly logs: readonly RpcLog[];
  readonly blocks: readonly BlockInfo[];
  /** Native transfers per block number (only when native transfers are planned). */
  readonly native: ReadonlyMap<number, readonly NativeTransfer[]>;
}

/** The chain changed between two calls of one batch; fetching it again resolves it. */
export class ChainMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainMovedError';
  }
}

export function toBlockInfo(b: RpcBlock): BlockInfo {
  const timestamp = Number(BigInt(b.timestamp));
  const full = b.transactions.length > 0 && typeof b.transactions[0] === 'object';
  const txs = full ? (b.transactions as RpcTransaction[]) : null;
  return {
    number: Number(BigInt(b.number)),
    hash: b.hash.toLowerCase() as Hex,
    parentHash: b.parentHash.toLowerCase() as Hex,
    timestamp,
    time: new Date(timestamp * 1000),
    txHashes: txs ? txs.map((t) => t.hash) : (b.transactions as Hex[]),
    txs: txs ?? (b.transactions.length === 0 ? [] : null),
  };
}

export async function fetchBatch(ctx: FetchContext, lo: number, hi: number): Promise<FetchedBatch> {
  const logs = await ctx.logs.fetch(lo, hi);

  const senderBlocks = new Set<number>();
  for (const log of logs) {
    if (ctx.plan.decoders.some((d) => d.needsSender(log))) senderBlocks.add(hexNumber(log.blockNumber));
  }
  const wantTxValues = ctx.plan.native && ctx.traces === null;
  const numbers = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  const tokenWork = ctx.tokens.ensure(tokensNeeded(ctx, logs));
  const raw = await getBlocks(ctx.rpc, numbers, (n) => wantTxValues || senderBlocks.has(n));
  const blocks = raw.map((b, i) => {
    if (!b) throw new ChainMovedError(`the node has no block ${numbers[i]} (yet)`);
    return toBlockInfo(b);
  });
  checkChain(blocks, logs);

  const native = new Map<number, NativeTransfer[]>();
  if (ctx.plan.native) {
    const withTxs = blocks.filter((b) => b.txHashes.length > 0);
    if (ctx.traces === 'debug_trace') {
      const traces = await traceBlocks(ctx.rpc, withTxs.map((b) => b.hash));
      withTxs.forEach((b, i) => {
        const t = traces[i]!;
        if (t.length !== b.txHashes.length) throw new ChainMovedError(`block ${b.number}: ${t.length} traces for ${b.txHashes.length} transactions`);
        native.set(b.number, transfersOfBlock(b, { traces: t }));
      });
    } else if (ctx.traces === 'trace_block') {
      // trace_block goes by number: every trace names its block, which must be the header's.
      const traces = await traceBlocksFlat(ctx.rpc, withTxs.map((b) => b.number));
      withTxs.forEach((b, i) => {
        const flat = traces[i]!;
        if (flat.some((t) => t.blockHash !== undefined && t.blockHash.toLowerCase() !== b.hash)) throw new ChainMovedError(`the traces of block ${b.number} belong to another version of it`);
        native.set(b.number, transfersOfBlock(b, { flat }));
      });
    } else {
      const paying = withTxs.filter((b) => b.txs!.some((t) => BigInt(t.value) > 0n));
      const receipts = await ctx.receipts.receipts(paying.map((b) => ({ hash: b.hash, txHashes: b.txHashes })));
      paying.forEach((b, i) => native.set(b.number, transfersOfBlock(b, { receipts: receipts[i]! })));
    }
  }
  await tokenWork;
  return { lo, hi, logs, blocks, native };
}

function tokensNeeded(ctx: FetchContext, logs: readonly RpcLog[]): Set<Hex> {
  const out = new Set<Hex>();
  for (const log of logs) for (const d of ctx.plan.decoders) for (const t of d.tokensOf(log)) out.add(t.toLowerCase() as Hex);
  return out;
}

/** Headers chain, and every log belongs to the header of its block. */
function checkChain(blocks: readonly BlockInfo[], logs: readonly RpcLog[]): void {
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i]!.parentHash !== blocks[i - 1]!.hash) throw new ChainMovedError(`block ${blocks[i]!.number} does not follow block ${blocks[i - 1]!.number}`);
  }
  const first = blocks[0]?.number ?? 0;
  for (const log of logs) {
    const b = blocks[hexNumber(log.blockNumber) - first];
    if (log.removed || !b || log.blockHash.toLowerCase() !== b.hash) {
      throw new ChainMovedError(`a log of block ${hexNumber(log.blockNumber)} belongs to another version of that block`);
    }
  }
}
