/**
 * What every block-chain adapter (EVM, Tron, Bitcoin) is given, what it
 * reports while it runs and what it returns, and how the blocks of a run are
 * chosen. Each adapter adds only its source's own options (its node, its
 * datasets, its tuning) to the core here, so the CLI, the operator's job
 * runner and /metrics read one shape whichever chain runs.
 */
import type { SkippedDataset } from '../../protocols/types.ts';
import type { Interval } from '../../store/coverage.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import type { IngestSummary } from '../progress.ts';
import type { TraceSource } from '../rpc/actions.ts';
import type { RpcStats } from '../rpc/createRpc.ts';

/** Which blocks a run ingests: [from, to] once; with `follow`, then every block that gets `confirmations` deep, until stopped (or `to`). */
export interface BlockSelection {
  /** Default: the block after what the network holds already (a first run must give it, unless it follows). */
  readonly from?: number | undefined;
  /** Default: the node's head less `confirmations`. */
  readonly to?: number | undefined;
  readonly follow?: boolean | undefined;
}

/** The options every chain adapter takes, whatever its node. */
export interface ChainRunOptions extends BlockSelection {
  /** Blocks behind the head treated as final; default per network. */
  readonly confirmations?: number | undefined;
  /** Fixed blocks per committed batch; default per adapter (adaptive for EVM). */
  readonly batchBlocks?: number | undefined;
  /** Ingest the range again even where coverage says it is done. */
  readonly force?: boolean | undefined;
  /** With `follow`: milliseconds between polls of the head. */
  readonly pollMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: ChainEvent) => void) | undefined;
}

/** What a chain run reports while it runs; the CLI draws them, jobs forward them, /metrics counts batches. */
export type ChainEvent =
  /** `skipped`: the network's datasets the run does not fill, and why; `traces`: how native transfers read call traces (false: without), null when none are planned. */
  | { type: 'start'; network: string; datasets: readonly string[]; skipped: readonly SkippedDataset[]; traces: TraceSource | false | null; confirmations: number; head: number }
  /** The ranges about to be ingested (more come in each follow round or after a reorg). */
  | { type: 'plan'; ranges: readonly Interval[]; blocks: number }
  /** `datasets`: rows the batch added per dataset. */
  | { type: 'batch'; lo: number; hi: number; blocks: number; events: number; datasets: Readonly<Record<string, number>> }
  | { type: 'notice'; message: string }
  | { type: 'reorg'; ancestor: number; depth: number; detectedAt: number }
  | { type: 'caught_up'; block: number; head: number };

/**
 * What one chain run did. The counts of every ingestion (IngestSummary) in
 * blocks: `done` blocks written, `skipped` blocks already covered, `rows`
 * rows written; then the chain's own.
 */
export interface ChainIngestSummary extends IngestSummary {
  readonly batches: number;
  readonly seconds: number;
  /** The signal ended the run (the normal end of `follow`). */
  readonly stopped: boolean;
  /** Each node's requests, failures, pace and answer time at the end of the run. */
  readonly nodes: readonly NodeStatus[];
  /** JSON-RPC calls, retries and bytes (EVM nodes). */
  readonly rpc?: RpcStats;
  /** Native transfers read with call traces (true) or from transaction values only (false); null where not planned or not applicable. */
  readonly traces: boolean | null;
}

/** A condition the operator must act on (a range the node cannot serve, a first run without --from); the CLI prints its message and exits non-zero. */
export class IngestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestError';
  }
}

/** What the selection resolves against when the run starts. */
export interface RangeContext {
  readonly network: string;
  /** The node's head. */
  readonly head: number;
  readonly confirmations: number;
  /** The block after what the network already holds, or null when it holds nothing. */
  readonly resume: () => Promise<number | null>;
  readonly emit: (e: ChainEvent) => void;
}

/**
 * The first backfill of a run: blocks [from, to] (to < from when there is
 * nothing to backfill). Only confirmed blocks are ever stored: a `to` above
 * head − confirmations stops there (with a notice, the rest left for later or
 * for the follow rounds); a `to` beyond the node's head is an error unless
 * the run follows. Without `from` the run continues after what is stored; a
 * first run must give it, or follow from the confirmed head on.
 */
export async function resolveRange(sel: BlockSelection, ctx: RangeContext): Promise<Interval> {
  const confirmed = ctx.head - ctx.confirmations;
  const requested = sel.to ?? confirmed;
  if (requested > ctx.head && !sel.follow) throw new IngestError(`--to ${requested} is beyond the node's head, block ${ctx.head}`);
  const to = Math.min(requested, confirmed);
  if (to < requested && !sel.follow) {
    ctx.emit({ type: 'notice', message: `stopping at block ${to}, ${ctx.confirmations} confirmations behind the head (${ctx.head}); blocks ${to + 1}–${requested} are left for later` });
  }
  let from = sel.from ?? (await ctx.resume());
  if (from === null) {
    if (!sel.follow) throw new IngestError(`nothing of ${ctx.network} is stored yet: give --from for the first run`);
    from = to + 1;
  }
  if (sel.to !== undefined && sel.to < from) throw new IngestError(`--to ${sel.to} is below --from ${from}`);
  return { lo: from, hi: to };
}
