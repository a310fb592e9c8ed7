/**
 * The run of a block-based adapter whose batches go through ingestBlocks.ts
 * (Tron, Bitcoin): the blocks chosen (chainRun.ts, resolveRange), backfilled,
 * then with `follow` new blocks once they are `confirmations` deep
 * (followHead.ts), until the signal aborts or `to` is reached. Only
 * confirmed blocks are ever stored.
 */
import { coveredIntervals } from '../../store/coverage.ts';
import type { Store } from '../../store/types.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import { resolveRange, type ChainEvent, type ChainIngestSummary, type ChainRunOptions } from './chainRun.ts';
import { followHead } from './followHead.ts';
import type { BlockCounts, ChainDataset } from './ingestBlocks.ts';

export interface RunChainParams {
  readonly store: Store;
  readonly network: string;
  readonly datasets: readonly ChainDataset[];
  /** The options as given; `confirmations` and `pollMs` below are their values with the adapter's defaults. */
  readonly options: ChainRunOptions;
  readonly confirmations: number;
  readonly pollMs: number;
  readonly getHead: () => Promise<number>;
  /** Ingests [from, to] (ingestBlocks), reporting through `emit`. */
  readonly ingest: (from: number, to: number, emit: (e: ChainEvent) => void) => Promise<BlockCounts>;
  readonly nodes: () => readonly NodeStatus[];
}

export async function runChain(p: RunChainParams): Promise<ChainIngestSummary> {
  const t0 = performance.now();
  const { options: opts } = p;
  const emit = opts.onEvent ?? (() => undefined);
  const total: BlockCounts = { done: 0, skipped: 0, rows: 0, batches: 0 };
  const add = (c: BlockCounts) => {
    total.done += c.done;
    total.skipped += c.skipped;
    total.rows += c.rows;
    total.batches += c.batches;
  };
  const range = await resolveRange(opts, {
    network: p.network,
    head: await p.getHead(),
    confirmations: p.confirmations,
    resume: () => nextUncovered(p.store, p.network, p.datasets),
    emit,
  });
  if (range.hi >= range.lo) add(await p.ingest(range.lo, range.hi, emit));
  if (opts.follow) {
    let next = Math.max(range.lo, range.hi + 1);
    await followHead({
      pollMs: p.pollMs,
      signal: opts.signal,
      round: async () => {
        const head = Math.min((await p.getHead()) - p.confirmations, opts.to ?? Number.POSITIVE_INFINITY);
        if (head >= next) {
          add(await p.ingest(next, head, emit));
          next = head + 1;
        }
        return opts.to === undefined || next <= opts.to;
      },
    });
  }
  // IngestSummary's fields first, in its order (the sources CLI prints the summary as JSON).
  return {
    done: total.done,
    skipped: total.skipped,
    missing: [],
    partial: [],
    failed: [],
    rows: total.rows,
    batches: total.batches,
    seconds: (performance.now() - t0) / 1000,
    stopped: opts.signal?.aborted === true,
    nodes: p.nodes(),
    traces: null,
  };
}

/** The block after the highest one every dataset covers, or null when none covers anything. */
async function nextUncovered(store: Store, network: string, datasets: readonly ChainDataset[]): Promise<number | null> {
  let min: number | null = null;
  for (const d of datasets) {
    const covered = await coveredIntervals(store, d.id, network);
    const last = covered[covered.length - 1];
    if (!last) return null;
    min = min === null ? last.hi + 1 : Math.min(min, last.hi + 1);
  }
  return min;
}
