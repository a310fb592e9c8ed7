/**
 * The run of every block-chain adapter (EVM, Tron, Bitcoin): the blocks
 * chosen (chainRun.ts, resolveRange), backfilled, then with `follow` new
 * blocks once they are `confirmations` deep (followHead.ts), until the signal
 * aborts or `to` is reached. Only confirmed blocks are ever stored.
 *
 * The adapter brings its node (the head), where a run continues, and the
 * ingestion of a block range (its batches through commitInOrder.ts); the run
 * is the same for every chain, and so are its events: `start` once the run
 * knows the head, `caught_up` after each follow round that reached a new
 * confirmed block.
 *
 * Each follow round plans again from the run's first block: coverage skips
 * what is stored, and what a rollback removed (anywhere in the run's range)
 * is ingested again. An adapter that can check the stored tip against its
 * node (`reconcile`, EVM) does so before each round.
 */
import type { SkippedDataset } from '../../protocols/types.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import type { TraceSource } from '../rpc/actions.ts';
import type { RpcStats } from '../rpc/createRpc.ts';
import { resolveRange, type ChainIngestSummary, type ChainRunOptions } from './chainRun.ts';
import { followHead } from './followHead.ts';

/** What a run (or one ingestBlocks call) did, in blocks: written, already covered, and the rows and batches written. */
export interface BlockCounts {
  done: number;
  skipped: number;
  rows: number;
  batches: number;
}

/** A chain's side of a run. */
export interface ChainAdapter {
  readonly network: string;
  /** The options' `confirmations` and `pollMs` with the adapter's defaults. */
  readonly confirmations: number;
  readonly pollMs: number;
  /** The datasets the run fills, those of the network it leaves (and why), and the call-trace method of native transfers (`start` event). */
  readonly datasets: readonly string[];
  readonly skipped: readonly SkippedDataset[];
  readonly traceSource: TraceSource | false | null;
  /** The node's head when the adapter read it while setting up (else the run asks getHead). */
  readonly head?: number | undefined;
  readonly getHead: () => Promise<number>;
  /** The block after what the network already holds, or null when it holds nothing. */
  readonly resume: () => Promise<number | null>;
  /** Makes [from, to] covered (all of it again with `force`); 'stopped' when the signal ended it between batches. */
  readonly ingest: (from: number, to: number, force: boolean) => Promise<'done' | 'stopped'>;
  /**
   * Before each follow round: compares the newest stored block at or above
   * `from` with the node's and rolls back what the node no longer holds.
   * Adapters whose blocks are final once stored have none.
   */
  readonly reconcile?: ((from: number) => Promise<void>) | undefined;
  /** The run's counts so far. */
  readonly counts: () => Readonly<BlockCounts>;
  readonly nodes: () => readonly NodeStatus[];
  /** JSON-RPC counts (EVM nodes). */
  readonly rpc?: (() => RpcStats) | undefined;
  /** Native transfers read with call traces (true) or without (false); null where not planned or not applicable. */
  readonly traces: boolean | null;
}

/** Runs `chain` as `opts` asks; `t0` is when the run began (its setup included). */
export async function runChain(chain: ChainAdapter, opts: ChainRunOptions, t0 = performance.now()): Promise<ChainIngestSummary> {
  const emit = opts.onEvent ?? (() => undefined);
  const { network, confirmations } = chain;
  const { signal } = opts;
  const head = chain.head ?? (await chain.getHead());
  emit({ type: 'start', network, datasets: chain.datasets, skipped: chain.skipped, traces: chain.traceSource, confirmations, head });
  const range = await resolveRange(opts, { network, head, confirmations, resume: chain.resume, emit });
  let stopped = false;
  if (!opts.follow) {
    stopped = range.hi >= range.lo && (await chain.ingest(range.lo, range.hi, opts.force === true)) === 'stopped';
  } else {
    const from = range.lo;
    let force = opts.force === true;
    let lastCaughtUp: number | null = null;
    /** Ingests what became confirmed at the head `readHead` gives; false once stopped or past `to`. */
    const round = async (readHead: () => Promise<number>): Promise<boolean> => {
      try {
        const head = await readHead();
        await chain.reconcile?.(from);
        const safe = Math.min(head - confirmations, opts.to ?? Number.POSITIVE_INFINITY);
        if (safe >= from && (await chain.ingest(from, safe, force)) === 'stopped') return false;
        force = false;
        // Once per new confirmed block, not on every poll.
        if (safe !== lastCaughtUp) emit({ type: 'caught_up', block: safe, head });
        lastCaughtUp = safe;
        return opts.to === undefined || safe < opts.to;
      } catch (e) {
        if (signal?.aborted) return false;
        throw e;
      }
    };
    // The first round is the backfill, up to the head read at the start.
    if (!signal?.aborted && (await round(async () => head))) await followHead({ pollMs: chain.pollMs, signal, round: () => round(chain.getHead) });
  }
  const counts = chain.counts();
  const rpc = chain.rpc?.();
  // IngestSummary's fields first, in its order (the sources CLI prints the summary as JSON).
  return {
    done: counts.done,
    skipped: counts.skipped,
    missing: [],
    partial: [],
    failed: [],
    rows: counts.rows,
    batches: counts.batches,
    seconds: (performance.now() - t0) / 1000,
    stopped: stopped || signal?.aborted === true,
    ...(rpc ? { rpc } : {}),
    nodes: chain.nodes(),
    traces: chain.traces,
  };
}
