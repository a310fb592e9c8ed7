/**
 * Everything one block batch needs from the node, fetched together:
 * 1. the logs of every planned dataset, in one eth_getLogs pass, kept as the
 *    node's JSON in the batch's log file and scanned by the engine
 *    (logFile.ts): engine decoders read it at commit, JS decoders get their
 *    logs as objects now;
 * 2. every block header of the range (time, hash, parent hash), with full
 *    transactions where a decoder needs a sender or a block decoder reads
 *    transaction values;
 * 3. what the plan's block decoders read (protocols/types.ts, BlockDecoder:
 *    call traces, or receipts without traces), decoded into their rows;
 * 4. metadata of tokens not seen before.
 * The pieces are checked against each other: every log's block hash must be
 * the header's, and the headers must chain. A mismatch means the chain moved
 * while we read it; the batch is then fetched again. The logs are also held
 * to what each block says it holds (its bloom, its receipts where they are
 * read: completeness.ts); a block that fails is fetched again, then fails
 * the batch, which is never covered.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../../store/types.ts';
import { backoffDelay } from '../../utils/backoff.ts';
import { sleep } from '../../utils/sleep.ts';
import { IncompleteBlockError } from '../chain/incomplete.ts';
import { getBlocks, traceBlocks, traceBlocksFlat, type ReceiptSource, type RpcBlock, type RpcReceipt, type RpcTransaction, type TraceSource } from '../rpc/actions.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import type { Hex, LogFetcher, RpcLog } from '../rpc/getLogs.ts';
import { checkLogsAgainstReceipts, checkReceipts, type LogCheck } from './completeness.ts';
import { openLogFile, scanLogFile, type LogFileScan } from './logFile.ts';
import type { DatasetPlan } from './planDatasets.ts';
import type { TokenBook } from './tokenBook.ts';
import { hexNumber, type BlockInfo, type BlockTraces, type ColumnValues, type EngineBatch } from '../../protocols/types.ts';
import { ChainChangedError } from '../../errors/chainqError.ts';

export interface FetchContext {
  readonly store: Store;
  readonly network: string;
  /** Where log files are written; the caller removes it when the run ends. */
  readonly logDir: string;
  readonly rpc: Rpc;
  readonly logs: LogFetcher;
  /** The filter `logs` fetches with, to check its answers against the blocks (completeness.ts); null when no log is fetched. */
  readonly logCheck: LogCheck | null;
  readonly plan: DatasetPlan;
  /** The network's currency symbol, for block decoders' rows. */
  readonly nativeSymbol: string;
  /** Block decoders read call traces (by this method) or, when null, transaction values and receipts. */
  readonly traces: TraceSource | null;
  readonly receipts: ReceiptSource;
  readonly tokens: TokenBook;
}

export interface FetchedEvmBatch {
  readonly lo: number;
  readonly hi: number;
  /** The logs JS decoders read, in block and log order. */
  readonly logs: readonly RpcLog[];
  /** The log file engine decoders read at commit (null when the batch has no logs); removed after the commit. */
  readonly logFile: string | null;
  /** What each engine decoder inserts at commit, by dataset. */
  readonly engine: ReadonlyMap<string, EngineBatch>;
  readonly blocks: readonly BlockInfo[];
  /** The block decoders' rows, by dataset, in block order. */
  readonly blockRows: ReadonlyMap<string, readonly ColumnValues[]>;
}

/** The chain changed between two calls of one batch; fetching it again resolves it. */
export class ChainMovedError extends ChainChangedError {}

/** Rows a batch aims at when its size is not given: every batch costs a few statements whatever it holds, so quiet blocks go in larger batches. */
const TARGET_EVENTS_PER_BATCH = 50_000;
/** Waits before fetching again a batch the chain moved under: 500 ms doubling to 4 s. */
const CHAIN_MOVED_BACKOFF = { baseMs: 500, maxMs: 4_000 } as const;

/** The blocks of the next batch, from the events per block of `b`: at most half or twice `size`, and no more than `maxSize`. */
export function nextBatchSize(b: FetchedEvmBatch, size: number, maxSize: number): number {
  const events = b.logs.length + [...b.engine.values()].reduce((n, e) => n + e.events, 0) + [...b.blockRows.values()].reduce((n, rows) => n + rows.length, 0);
  const perBlock = events / b.blocks.length;
  const ideal = perBlock > 0 ? TARGET_EVENTS_PER_BATCH / perBlock : maxSize;
  return Math.max(1, Math.min(maxSize, Math.round(Math.min(Math.max(ideal, size / 2), size * 2))));
}

/**
 * fetchBatch, fetched again (up to 5 times) while the chain moves under it or
 * an answer is not whole; one still incomplete fails the batch, uncovered.
 */
export async function fetchSettled(
  ctx: FetchContext,
  lo: number,
  hi: number,
  opts: { readonly signal?: AbortSignal | undefined; readonly onIncomplete?: ((e: IncompleteBlockError) => void) | undefined },
): Promise<FetchedEvmBatch> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchBatch(ctx, lo, hi);
    } catch (e) {
      if (!(e instanceof ChainMovedError || e instanceof IncompleteBlockError) || attempt >= 5 || opts.signal?.aborted) throw e;
      if (e instanceof IncompleteBlockError) opts.onIncomplete?.(e);
      await sleep(backoffDelay(CHAIN_MOVED_BACKOFF, attempt + 1), opts.signal);
    }
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

let files = 0;
const NO_LOGS: LogFileScan = { blockHashes: new Map(), logIndices: new Map(), conflict: null, jsLogs: [], engine: new Map() };

/** Streams the logs of [lo, hi] into a log file and scans it; the file is gone if this throws. */
async function fetchLogs(ctx: FetchContext, lo: number, hi: number): Promise<{ file: string | null; scan: LogFileScan }> {
  const writer = openLogFile(path.join(ctx.logDir, `${lo}-${hi}-${++files}.json`));
  try {
    await ctx.logs.fetchInto(lo, hi, writer);
  } catch (e) {
    writer.discard();
    throw e;
  }
  if (!writer.close()) return { file: null, scan: NO_LOGS };
  try {
    const scan = await scanLogFile(ctx.store, writer.path, { js: ctx.plan.jsDecoders, engine: ctx.plan.engineDecoders });
    if (scan.conflict) throw new ChainMovedError(scan.conflict);
    return { file: writer.path, scan };
  } catch (e) {
    fs.rmSync(writer.path, { force: true });
    throw e;
  }
}

export async function fetchBatch(ctx: FetchContext, lo: number, hi: number): Promise<FetchedEvmBatch> {
  const { file, scan } = await fetchLogs(ctx, lo, hi);
  try {
    const logs = scan.jsLogs;
    const senderBlocks = new Set<number>();
    for (const log of logs) {
      if (ctx.plan.jsDecoders.some((d) => d.needsSender(log))) senderBlocks.add(hexNumber(log.blockNumber));
    }
    const wantTxValues = ctx.plan.blockDecoders.length > 0 && ctx.traces === null;
    const numbers = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
    const tokenWork = ctx.tokens.ensure([...tokensNeeded(ctx, logs), ...[...scan.engine.values()].flatMap((e) => e.tokens)]);
    tokenWork.catch(() => undefined); // awaited below; a header error may come first
    const raw = await getBlocks(ctx.rpc, numbers, (n) => wantTxValues || senderBlocks.has(n));
    const blocks = raw.map((b, i) => {
      if (!b) throw new ChainMovedError(`the node has no block ${numbers[i]} (yet)`);
      return toBlockInfo(b);
    });
    checkChain(blocks, scan.blockHashes);

    /** Receipts fetched for this batch, by block: each is checked against the block and the logs. */
    const receiptsOf = new Map<number, readonly RpcReceipt[]>();
    const blockRows = await readBlocks(ctx, blocks, receiptsOf);
    await checkCompleteness(
      ctx,
      blocks,
      raw.map((b) => b?.logsBloom),
      scan.logIndices,
      receiptsOf,
    );
    await tokenWork;
    return { lo, hi, logs, logFile: file, engine: scan.engine, blocks, blockRows };
  } catch (e) {
    if (file) fs.rmSync(file, { force: true });
    throw e;
  }
}

/** What the plan's block decoders read from each block with transactions, and the rows they make of it, by dataset. */
async function readBlocks(ctx: FetchContext, blocks: readonly BlockInfo[], receiptsOf: Map<number, readonly RpcReceipt[]>): Promise<Map<string, ColumnValues[]>> {
  const decoders = ctx.plan.blockDecoders;
  const rows = new Map<string, ColumnValues[]>(decoders.map((d) => [d.dataset, []]));
  if (decoders.length === 0) return rows;
  const sources = await blockSources(
    ctx,
    blocks.filter((b) => b.txHashes.length > 0),
    receiptsOf,
  );
  const env = { network: ctx.network, nativeSymbol: ctx.nativeSymbol };
  for (const d of decoders) {
    const out = rows.get(d.dataset) ?? [];
    for (const [b, source] of sources) for (const row of d.decodeBlock(b, source, env)) out.push(row);
  }
  return rows;
}

function answered<T>(answer: T | undefined, b: BlockInfo): T {
  if (answer === undefined) throw new Error(`the node's answer left out block ${b.number}`);
  return answer;
}

/** Each block's call traces by the run's trace method, or without one the receipts of the blocks a decoder needs them of; in block order. */
async function blockSources(ctx: FetchContext, withTxs: readonly BlockInfo[], receiptsOf: Map<number, readonly RpcReceipt[]>): Promise<[BlockInfo, BlockTraces][]> {
  if (ctx.traces === 'debug_trace') {
    const traces = await traceBlocks(
      ctx.rpc,
      withTxs.map((b) => b.hash),
    );
    return withTxs.map((b, i) => {
      const t = answered(traces[i], b);
      if (t.length !== b.txHashes.length) throw new ChainMovedError(`block ${b.number}: ${t.length} traces for ${b.txHashes.length} transactions`);
      return [b, { traces: t }];
    });
  }
  if (ctx.traces === 'trace_block') {
    // trace_block goes by number: every trace names its block, which must be the header's.
    const traces = await traceBlocksFlat(
      ctx.rpc,
      withTxs.map((b) => b.number),
    );
    return withTxs.map((b, i) => {
      const flat = answered(traces[i], b);
      if (flat.some((t) => t.blockHash !== undefined && t.blockHash.toLowerCase() !== b.hash)) throw new ChainMovedError(`the traces of block ${b.number} belong to another version of it`);
      return [b, { flat }];
    });
  }
  const asked = withTxs.filter((b) => ctx.plan.blockDecoders.some((d) => d.needsReceipts(b)));
  const receipts = await ctx.receipts.receipts(asked.map((b) => ({ hash: b.hash, txHashes: b.txHashes })));
  return asked.map((b, i) => {
    const r = answered(receipts[i], b);
    receiptsOf.set(b.number, r);
    return [b, { receipts: r }];
  });
}

/**
 * Every block's logs are whole as far as the block can tell (completeness.ts):
 * a block whose bloom may hold matching logs while none came back has its
 * receipts read, and every block with receipts is checked against them.
 */
async function checkCompleteness(
  ctx: FetchContext,
  blocks: readonly BlockInfo[],
  blooms: readonly (Hex | undefined)[],
  logIndices: ReadonlyMap<number, readonly number[]>,
  receiptsOf: Map<number, readonly RpcReceipt[]>,
): Promise<void> {
  const check = ctx.logCheck;
  if (!check) return;
  const suspects = blocks.filter((b, i) => {
    if (logIndices.has(b.number) || receiptsOf.has(b.number) || b.txHashes.length === 0) return false;
    const bloom = blooms[i];
    return bloom === undefined || check.mayMatch(bloom);
  });
  if (suspects.length > 0) {
    const receipts = await ctx.receipts.receipts(suspects.map((b) => ({ hash: b.hash, txHashes: b.txHashes })));
    suspects.forEach((b, i) => {
      receiptsOf.set(b.number, receipts[i]!);
    });
  }
  const first = blocks[0]?.number ?? 0;
  for (const [n, receipts] of receiptsOf) {
    const b = blocks[n - first]!;
    const checked = { network: ctx.network, number: n, txHashes: b.txHashes, logsBloom: blooms[n - first] };
    checkLogsAgainstReceipts(checked, logIndices.get(n) ?? [], checkReceipts(checked, receipts), check);
  }
}

function tokensNeeded(ctx: FetchContext, logs: readonly RpcLog[]): Set<Hex> {
  const out = new Set<Hex>();
  for (const log of logs) for (const d of ctx.plan.jsDecoders) for (const t of d.tokensOf(log)) out.add(t.toLowerCase() as Hex);
  return out;
}

/** Headers chain, and every block with logs is named by its logs with the header's hash. */
function checkChain(blocks: readonly BlockInfo[], logBlocks: ReadonlyMap<number, string>): void {
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i]!.parentHash !== blocks[i - 1]!.hash) throw new ChainMovedError(`block ${blocks[i]!.number} does not follow block ${blocks[i - 1]!.number}`);
  }
  const first = blocks[0]?.number ?? 0;
  for (const [n, hash] of logBlocks) {
    const b = blocks[n - first];
    if (!b || hash !== b.hash) throw new ChainMovedError(`a log of block ${n} belongs to another version of that block`);
  }
}
