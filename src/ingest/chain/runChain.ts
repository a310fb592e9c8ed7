/**
 * Range resolution and `--follow` for block-based adapters: backfill
 * [from, to], then keep ingesting new blocks once they are `confirmations`
 * deep (followHead.ts), until the signal aborts. Only confirmed blocks are
 * ever stored.
 */
import { coveredIntervals } from '../../store/coverage.ts';
import type { Store } from '../../store/types.ts';
import type { IngestSummary } from '../progress.ts';
import { followHead } from './followHead.ts';
import type { ChainDataset } from './ingestBlocks.ts';

export interface RunChainOptions {
  readonly store: Store;
  readonly network: string;
  readonly datasets: readonly ChainDataset[];
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly follow: boolean;
  readonly confirmations: number;
  readonly pollMs: number;
  readonly getHead: () => Promise<number>;
  readonly ingest: (from: number, to: number) => Promise<IngestSummary>;
  readonly signal?: AbortSignal | undefined;
  readonly note?: (message: string) => void;
}

export async function runChain(opts: RunChainOptions): Promise<IngestSummary> {
  const total: IngestSummary = { done: 0, skipped: 0, missing: [], partial: [], failed: [], rows: 0 };
  const add = (s: IngestSummary) => {
    total.done += s.done;
    total.skipped += s.skipped;
    total.rows += s.rows;
  };
  const safeHead = async () => (await opts.getHead()) - opts.confirmations;
  let from = opts.from ?? (await nextUncovered(opts.store, opts.network, opts.datasets));
  const confirmed = await safeHead();
  const to = Math.min(opts.to ?? confirmed, confirmed);
  if (opts.to !== undefined && opts.to > confirmed && !opts.follow) {
    opts.note?.(`${opts.network}: stopping at block ${confirmed}, the head less ${opts.confirmations} confirmations (asked for ${opts.to})`);
  }
  if (from === null) {
    if (!opts.follow) throw new Error(`${opts.network}: give --from (nothing has been ingested yet to continue from)`);
    from = to + 1; // follow from the current confirmed head
  }
  if (opts.to !== undefined && opts.to < from) throw new Error(`--to ${opts.to} is below --from ${from}`);
  if (to >= from) add(await opts.ingest(from, to));
  if (!opts.follow) return total;
  let next = Math.max(from, to + 1);
  await followHead({
    pollMs: opts.pollMs,
    signal: opts.signal,
    round: async () => {
      let head = await safeHead();
      if (opts.to !== undefined) head = Math.min(head, opts.to);
      if (head >= next) {
        add(await opts.ingest(next, head));
        next = head + 1;
      }
      return opts.to === undefined || next <= opts.to;
    },
  });
  return total;
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
