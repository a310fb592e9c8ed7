/**
 * The backfill loop shared by the Tron and Bitcoin adapters. The unit is a
 * batch of consecutive blocks; each batch's rows, its `blocks` rows and its
 * coverage commit in one transaction, after deleting whatever the store held
 * for those blocks. So a crash loses at most the batches in flight, a rerun
 * fetches only what coverage lacks, and nothing is ever stored twice.
 *
 * Batches are fetched ahead (bounded) and committed strictly in order
 * (commitInOrder.ts: a batch's write overlaps the next one's fetch and check),
 * which lets each batch check that it continues the stored chain: a first block
 * whose parent is not the stored block before it is a reorg, rolled back to
 * the common ancestor before going on.
 */
import { ChainBreakError } from '../../store/chainBreak.ts';
import { storedTip } from '../../store/chainReads.ts';
import { findCommonAncestor } from './commonAncestor.ts';
import { commitInOrder } from './commitInOrder.ts';
import { coveredIntervals, gaps, union, type Interval } from '../../store/coverage.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { ChainDataset, Store, TableRow } from '../../store/types.ts';
import type { IngestHooks } from '../progress.ts';
import type { ChainEvent } from './chainRun.ts';
import type { BlockCounts, ChainAdapter } from './runChain.ts';

/** One row for the store, columns in table order. */
export type StoreRow = TableRow;

/** A dataset (endpoint id, the coverage dataset: 'tron/native/transfer') and its table. */
export type { ChainDataset };

export interface BlockHeader {
  readonly number: number;
  readonly timeMs: number;
  readonly hash: string;
  readonly parentHash: string;
}

export interface FetchedBatch {
  /** Every block lo..hi, in order. */
  readonly blocks: readonly BlockHeader[];
  /** Rows per table, columns in table order. */
  readonly rows: ReadonlyMap<string, readonly StoreRow[]>;
}

export interface IngestBlocksOptions {
  readonly store: Store;
  readonly network: string;
  /** The datasets this run fills. */
  readonly datasets: readonly ChainDataset[];
  /** Every dataset of the network: a reorg rollback must clear them all, because `blocks` is shared. */
  readonly networkDatasets: readonly ChainDataset[];
  readonly from: number;
  readonly to: number;
  readonly batchSize: number;
  /** Batches fetched ahead of the one being committed. */
  readonly prefetch: number;
  readonly fetchBatch: (lo: number, hi: number) => Promise<FetchedBatch>;
  /** The node's hash of block n, to find the common ancestor after a reorg. */
  readonly fetchHash?: (n: number) => Promise<string>;
  readonly maxReorgDepth?: number;
  /** Re-ingest blocks even where coverage says they are done. */
  readonly force?: boolean;
  readonly signal?: AbortSignal | undefined;
  /** The run's progress: plan, batch and reorg events. */
  readonly emit: (e: ChainEvent) => void;
  readonly hooks?: IngestHooks;
}

export class ReorgError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReorgError';
  }
}

class ReorgDetected extends Error {
  constructor(readonly at: number) {
    super(`reorg detected below block ${at}`);
  }
}

/** The block ranges still to ingest: parts of [from, to] that any of the datasets lacks. */
export async function pendingRanges(store: Store, network: string, datasets: readonly ChainDataset[], from: number, to: number): Promise<Interval[]> {
  const missing: Interval[] = [];
  for (const d of datasets) missing.push(...gaps(from, to, await coveredIntervals(store, d.id, network)));
  return union(missing);
}

/** The block after the highest one every dataset covers, or null when none covers anything: where a run without `from` continues. */
export async function nextUncovered(store: Store, network: string, datasets: readonly ChainDataset[]): Promise<number | null> {
  let min: number | null = null;
  for (const d of datasets) {
    const covered = await coveredIntervals(store, d.id, network);
    const last = covered[covered.length - 1];
    if (!last) return null;
    min = min === null ? last.hi + 1 : Math.min(min, last.hi + 1);
  }
  return min;
}

export function splitBatches(ranges: readonly Interval[], size: number): Interval[] {
  const out: Interval[] = [];
  for (const r of ranges) for (let lo = r.lo; lo <= r.hi; lo += size) out.push({ lo, hi: Math.min(r.hi, lo + size - 1) });
  return out;
}

/**
 * ingestBlocks as the `ingest` and `counts` of a run (runChain.ts): each call
 * covers its range (all of it again with `force`), the counts add up over the
 * run. A stop between batches ends the call with the signal's error.
 */
export function blockIngestion(base: Omit<IngestBlocksOptions, 'from' | 'to' | 'force'>): Pick<ChainAdapter, 'ingest' | 'counts'> {
  const total: BlockCounts = { done: 0, skipped: 0, rows: 0, batches: 0 };
  return {
    ingest: async (from, to, force) => {
      const c = await ingestBlocks({ ...base, from, to, force });
      total.done += c.done;
      total.skipped += c.skipped;
      total.rows += c.rows;
      total.batches += c.batches;
      return 'done';
    },
    counts: () => total,
  };
}

export async function ingestBlocks(opts: IngestBlocksOptions): Promise<BlockCounts> {
  const counts: BlockCounts = { done: 0, skipped: 0, rows: 0, batches: 0 };
  let from = opts.from;
  for (let round = 0; ; round++) {
    try {
      await runOnce(opts, from, counts, round === 0 && opts.force === true);
      return counts;
    } catch (e) {
      if (!(e instanceof ReorgDetected)) throw e;
      const { ancestor, depth } = await rollbackReorg(opts, e.at);
      opts.emit({ type: 'reorg', ancestor, depth, detectedAt: e.at });
      from = Math.min(from, ancestor + 1);
    }
  }
}

async function runOnce(opts: IngestBlocksOptions, from: number, counts: BlockCounts, force: boolean): Promise<void> {
  const ranges = force ? [{ lo: from, hi: opts.to }] : await pendingRanges(opts.store, opts.network, opts.datasets, from, opts.to);
  const batches = splitBatches(ranges, opts.batchSize);
  const blocks = batches.reduce((n, b) => n + b.hi - b.lo + 1, 0);
  counts.skipped += Math.max(0, opts.to - from + 1 - blocks);
  if (batches.length > 0) opts.emit({ type: 'plan', ranges, blocks });
  let next = 0;
  const outcome = await commitInOrder<{ readonly range: Interval; readonly fetched: FetchedBatch }>({
    next: () => batches[next++] ?? null,
    fetch: async (lo, hi) => ({ range: { lo, hi }, fetched: await opts.fetchBatch(lo, hi) }),
    window: opts.prefetch,
    signal: opts.signal,
    prepare: async ({ range: b, fetched: first }) => {
      let fetched = first;
      // A batch whose blocks do not chain was read while the node switched
      // forks: read it again rather than store a mix of two chains.
      for (let attempt = 1; !isConsistent(opts.network, b, fetched); attempt++) {
        if (attempt > 3) throw new Error(`${opts.network}: blocks ${b.lo}–${b.hi} do not form a chain after ${attempt} reads; is the node syncing?`);
        fetched = await opts.fetchBatch(b.lo, b.hi);
      }
      return async () => {
        const rows = await commitBatch(opts, b, fetched);
        counts.done += b.hi - b.lo + 1;
        counts.rows += rows;
        counts.batches++;
        const datasets = Object.fromEntries(opts.datasets.map((d) => [d.id, fetched.rows.get(d.table)?.length ?? 0]));
        opts.emit({ type: 'batch', lo: b.lo, hi: b.hi, blocks: b.hi - b.lo + 1, events: rows, datasets });
        await opts.hooks?.afterCommit?.(`${opts.network}:${b.lo}-${b.hi}`);
      };
    },
  });
  if (outcome === 'stopped') opts.signal?.throwIfAborted();
}

/** Throws when the node did not return exactly lo..hi; false when the blocks do not chain by parent hash. */
export function isConsistent(network: string, b: Interval, fetched: FetchedBatch): boolean {
  const blocks = fetched.blocks;
  if (blocks.length !== b.hi - b.lo + 1) throw new Error(`${network}: asked for blocks ${b.lo}–${b.hi}, the node returned ${blocks.length} blocks`);
  return blocks.every((blk, i) => {
    if (blk.number !== b.lo + i) throw new Error(`${network}: expected block ${b.lo + i}, the node returned ${blk.number}`);
    return i === 0 || blk.parentHash === blocks[i - 1]!.hash;
  });
}

/** Writes a batch, first checking that it continues the stored chain; returns the rows written. */
async function commitBatch(opts: IngestBlocksOptions, b: Interval, fetched: FetchedBatch): Promise<number> {
  const tables = opts.datasets.map((d) => ({ table: d.table, rows: fetched.rows.get(d.table) ?? [] }));
  try {
    await opts.store.chain.publish({
      network: opts.network,
      lo: b.lo,
      hi: b.hi,
      parentHash: fetched.blocks[0]!.parentHash,
      blocks: fetched.blocks.map((blk) => ({ number: blk.number, time: toSqlTimestamp(blk.timeMs), hash: blk.hash, parentHash: blk.parentHash })),
      tables,
      covers: opts.datasets.map((d) => d.id),
      uncovers: [],
    });
  } catch (e) {
    if (e instanceof ChainBreakError) throw new ReorgDetected(b.lo);
    throw e;
  }
  return tables.reduce((n, t) => n + t.rows.length, 0);
}

/**
 * Walks back from block `at − 1` until the stored hash equals the node's,
 * then deletes rows, blocks and coverage above that ancestor for every
 * dataset of the network, at once. Returns the ancestor.
 */
async function rollbackReorg(opts: IngestBlocksOptions, at: number): Promise<{ ancestor: number; depth: number }> {
  const max = opts.maxReorgDepth ?? 100;
  const fetchHash = opts.fetchHash;
  if (!fetchHash) throw new ReorgError(`${opts.network}: the chain changed below block ${at} (the parent hash differs from the stored block) and this adapter cannot look up block hashes`);
  const { ancestor, depth } = await findCommonAncestor({
    store: opts.store,
    network: opts.network,
    from: at - 1,
    maxDepth: max,
    nodeHash: fetchHash,
    tooDeep: () => new ReorgError(`${opts.network}: reorg deeper than ${max} blocks below ${at}; re-ingest the range with --force from a block before the fork`),
  });
  const through = Math.max(at - 1, (await storedTip(opts.store, opts.network, 0)) ?? 0);
  await opts.store.chain.rollback({ network: opts.network, ancestor, through, datasets: opts.networkDatasets, coverageOnly: [], pools: false });
  return { ancestor, depth };
}
