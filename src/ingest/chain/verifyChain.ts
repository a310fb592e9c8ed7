/**
 * `chainq verify` on a block-batch network (Tron, Bitcoin): reads blocks the
 * store covers again from a node with the adapter's own batch fetcher and
 * decoders, puts the rows into an in-memory store, and compares, per dataset
 * and block, the row count and content hash with the stored rows. It reports
 * and records exactly as the EVM verification does; nothing is written to the
 * store but the record of the verification.
 */
import type { TableDef } from '../../catalog/types.ts';
import { blocksAround, coveredIntervals, intersect, union, type Interval } from '../../store/coverage.ts';
import { openDecodeStore } from '../../store/openStore.ts';
import type { Store } from '../../store/types.ts';
import { decodedBlockDigests, recordVerifications, replaceDecodedRows, storedBlockDigests, type BlockDigest, type VerificationRecord } from '../../store/verification.ts';
import { compareDigests, type DatasetTally, sampleBlocks, type VerifyEvent, type VerifyMismatch, type VerifyReport, type VerifySelection } from '../evm/verifyEvm.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import { fetchAhead } from './fetchAhead.ts';
import { isConsistent, splitBatches, type FetchedBatch } from './ingestBlocks.ts';

/** A dataset the network can hold: its coverage id and its table. */
export interface VerifiableDataset {
  readonly id: string;
  readonly table: TableDef;
}

export interface VerifyChainOptions {
  readonly network: string;
  /** The node's URL without credentials, path or query. */
  readonly node: string;
  /** Every dataset of the network; those the store covers in the selection are compared. */
  readonly datasets: readonly VerifiableDataset[];
  /** Datasets the store covers that cannot be compared, and why (left out of `datasets`). */
  readonly unverifiable?: ReadonlyMap<string, string>;
  /** The adapter's fetcher: blocks lo..hi and their rows, as ingestion stores them. */
  readonly fetchBatch: (lo: number, hi: number) => Promise<FetchedBatch>;
  readonly selection: VerifySelection;
  readonly sample?: number | undefined;
  readonly batchBlocks: number;
  /** Batches fetched at once. */
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: VerifyEvent) => void) | undefined;
  readonly random?: () => number;
}

/** What a network's verification takes from the command: the comparison's options and how to read the node. */
export type ChainVerifyOptions = Pick<VerifyChainOptions, 'selection' | 'sample' | 'signal' | 'onEvent' | 'random'> & {
  /** Blocks per fetched batch (default: the adapter's ingestion batch). */
  readonly batchBlocks?: number | undefined;
  /** Batches fetched at once. */
  readonly concurrency?: number | undefined;
  readonly http: HttpOptions;
};

const blockCount = (ranges: readonly Interval[]) => ranges.reduce((n, r) => n + r.hi - r.lo + 1, 0);

async function selectedBlocks(store: Store, network: string, selection: VerifySelection): Promise<Interval | null> {
  if (selection.kind === 'blocks') return { lo: selection.lo, hi: selection.hi };
  if (selection.kind === 'all') return null;
  const { before, after } = await blocksAround(store, network, selection.since, selection.until);
  if (before === null) throw new Error(`the store holds no block of ${network} before ${new Date(selection.since).toISOString()}: give a later --since or a block range`);
  if (after === null) throw new Error(`the store holds no block of ${network} at or after ${new Date(selection.until).toISOString()}: give an earlier --until or a block range`);
  return { lo: before + 1, hi: after - 1 };
}

/** Fetches lo..hi, again while the blocks do not chain (the node switched forks mid-read), as ingestion does. */
async function fetchChained(fetchBatch: VerifyChainOptions['fetchBatch'], network: string, lo: number, hi: number): Promise<FetchedBatch> {
  for (let attempt = 1; ; attempt++) {
    const fetched = await fetchBatch(lo, hi);
    if (isConsistent(network, { lo, hi }, fetched)) return fetched;
    if (attempt >= 3) throw new Error(`${network}: blocks ${lo}–${hi} do not form a chain after ${attempt} reads; is the node syncing?`);
  }
}

/** Where the store covers each dataset inside the selection; datasets that cannot be compared are set aside with their reason. */
async function coveredInSelection(store: Store, opts: VerifyChainOptions): Promise<{ coverage: Map<string, Interval[]>; skipped: { dataset: string; reason: string }[] }> {
  const window = await selectedBlocks(store, opts.network, opts.selection);
  const coverage = new Map<string, Interval[]>();
  const skipped: { dataset: string; reason: string }[] = [];
  const candidates = [...opts.datasets.map((d) => d.id), ...(opts.unverifiable?.keys() ?? [])];
  for (const id of candidates) {
    const c = await coveredIntervals(store, id, opts.network);
    const inWindow = window ? intersect(c, [window]) : c;
    if (inWindow.length === 0) continue;
    const reason = opts.unverifiable?.get(id);
    if (reason) skipped.push({ dataset: id, reason });
    else coverage.set(id, inWindow);
  }
  return { coverage, skipped };
}

export async function verifyChain(store: Store, opts: VerifyChainOptions): Promise<VerifyReport> {
  const t0 = performance.now();
  const verifiedAt = new Date();
  const { network, node, signal } = opts;
  const emit = opts.onEvent ?? (() => undefined);

  const { coverage, skipped } = await coveredInSelection(store, opts);
  const compared = opts.datasets.filter((d) => coverage.has(d.id));

  let ranges = union([...coverage.values()].flat());
  const sampled = opts.sample !== undefined;
  if (opts.sample !== undefined) ranges = sampleBlocks(ranges, opts.sample, opts.random ?? Math.random);
  emit({ type: 'start', network, datasets: compared.map((d) => d.id), skipped, blocks: blockCount(ranges) });

  const perDataset = new Map(compared.map((d): [string, DatasetTally] => [d.id, { blocks: 0, storedRows: 0, nodeRows: 0, mismatchBlocks: [] }]));
  const mismatches: VerifyMismatch[] = [];
  let stopped = false;

  if (compared.length > 0 && ranges.length > 0) {
    const decoded = await openDecodeStore();
    const work = splitBatches(ranges, opts.batchBlocks);
    let i = 0;
    const ahead = fetchAhead(
      () => work[i++] ?? null,
      (lo, hi) => fetchChained(opts.fetchBatch, network, lo, hi),
      opts.concurrency,
    );
    try {
      for (;;) {
        if (signal?.aborted) {
          stopped = true;
          break;
        }
        const batch = await ahead.take();
        if (!batch) break;
        const first = batch.blocks[0];
        const last = batch.blocks[batch.blocks.length - 1];
        if (!first || !last) continue;
        const lo = first.number;
        const hi = last.number;
        let found = 0;
        for (const d of compared) {
          const blocks = intersect([{ lo, hi }], coverage.get(d.id) ?? []);
          if (blocks.length === 0) continue;
          await replaceDecodedRows(decoded, d.table, batch.rows.get(d.table.name) ?? []);
          // One table each: the digest functions take several to hash them in one query.
          const [mine = new Map<number, BlockDigest>()] = await storedBlockDigests(store, [d.table], network, lo, hi);
          const [theirs = new Map<number, BlockDigest>()] = await decodedBlockDigests(store, decoded, [d.table], network, lo, hi);
          const acc = perDataset.get(d.id);
          if (acc) found += compareDigests(d.id, blocks, mine, theirs, acc, mismatches);
        }
        emit({ type: 'batch', lo, hi, blocks: batch.blocks.length, mismatches: found });
      }
    } finally {
      await ahead.settleAll();
      await decoded.close();
    }
  }

  const report: VerifyReport = {
    network,
    node,
    sampled,
    ranges,
    blocks: blockCount(ranges),
    datasets: compared.map((d) => {
      const a = perDataset.get(d.id);
      return { dataset: d.id, blocks: a?.blocks ?? 0, storedRows: a?.storedRows ?? 0, nodeRows: a?.nodeRows ?? 0, mismatches: a?.mismatchBlocks.length ?? 0 };
    }),
    skipped,
    mismatches: mismatches.sort((a, b) => a.block - b.block || a.dataset.localeCompare(b.dataset)),
    result: mismatches.length ? 'mismatch' : 'ok',
    stopped,
    seconds: (performance.now() - t0) / 1000,
    verifiedAt: verifiedAt.toISOString(),
  };
  // A stopped run compared only part of what it names: it is not recorded as a verification.
  if (!stopped) {
    const records: VerificationRecord[] = compared.map((d) => {
      const a = perDataset.get(d.id);
      const differing = a?.mismatchBlocks ?? [];
      return {
        network,
        dataset: d.id,
        verifiedAt,
        node,
        sampled,
        ranges: intersect(ranges, coverage.get(d.id) ?? []),
        blocks: a?.blocks ?? 0,
        result: differing.length ? 'mismatch' : 'ok',
        mismatchBlocks: differing,
      };
    });
    await recordVerifications(store, records);
  }
  return report;
}
