/**
 * The backfill loop shared by the Tron and Bitcoin adapters. The unit is a
 * batch of consecutive blocks; each batch's rows, its `blocks` rows and its
 * coverage commit in one transaction, after deleting whatever the store held
 * for those blocks. So a crash loses at most the batches in flight, a rerun
 * fetches only what coverage lacks, and nothing is ever stored twice.
 *
 * Batches are fetched ahead (bounded) and committed strictly in order, which
 * lets each batch check that it continues the stored chain: a first block
 * whose parent is not the stored block before it is a reorg, rolled back to
 * the common ancestor before going on.
 */
import { recordOrphans } from '../../store/chainLog.ts';
import { storedBlockHashes, storedTip } from '../../store/chainReads.ts';
import { findCommonAncestor } from './commonAncestor.ts';
import { fetchAhead } from './fetchAhead.ts';
import { clickHouseOf } from '../../store/clickhouse/createClickHouseStore.ts';
import { blockTable, publishBatch, rollbackClickHouse, type BatchTable } from '../../store/clickhouse/publish.ts';
import { addCoverage, coveredIntervals, gaps, removeCoverage, union, type Interval } from '../../store/coverage.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { Store, Tx } from '../../store/types.ts';
import { emptySummary, silentProgress, type IngestHooks, type IngestProgress, type IngestSummary } from '../progress.ts';

/** One row for the store's appender, columns in table order. */
export type StoreRow = Parameters<Tx['append']>[1][number];

export interface ChainDataset {
  /** Endpoint id, the coverage dataset: 'tron/native/transfer'. */
  readonly id: string;
  /** Store table holding its rows, with `network` and `block_number` columns. */
  readonly table: string;
}

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
  readonly progress?: IngestProgress;
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

export function splitBatches(ranges: readonly Interval[], size: number): Interval[] {
  const out: Interval[] = [];
  for (const r of ranges) for (let lo = r.lo; lo <= r.hi; lo += size) out.push({ lo, hi: Math.min(r.hi, lo + size - 1) });
  return out;
}

export async function ingestBlocks(opts: IngestBlocksOptions): Promise<IngestSummary> {
  const summary = emptySummary();
  let from = opts.from;
  for (let round = 0; ; round++) {
    try {
      await runOnce(opts, from, summary, round === 0 && opts.force === true);
      return summary;
    } catch (e) {
      if (!(e instanceof ReorgDetected)) throw e;
      const ancestor = await rollbackReorg(opts, e.at);
      opts.progress?.note(`${opts.network}: reorg below block ${e.at}; rolled back to the common ancestor ${ancestor} and re-ingesting from ${ancestor + 1}`);
      from = Math.min(from, ancestor + 1);
    }
  }
}

async function runOnce(opts: IngestBlocksOptions, from: number, summary: IngestSummary, force: boolean): Promise<void> {
  const progress = opts.progress ?? silentProgress;
  const ranges = force ? [{ lo: from, hi: opts.to }] : await pendingRanges(opts.store, opts.network, opts.datasets, from, opts.to);
  const batches = splitBatches(ranges, opts.batchSize);
  const total = Math.max(0, opts.to - from + 1);
  summary.skipped += Math.max(0, total - batches.reduce((n, b) => n + b.hi - b.lo + 1, 0));
  if (batches.length > 0) progress.start(`${opts.network} blocks ${from}–${opts.to}`, batches.length);
  let next = 0;
  const ahead = fetchAhead(() => batches[next++] ?? null, opts.fetchBatch, opts.prefetch);
  try {
    for (const b of batches) {
      opts.hooks?.signal?.throwIfAborted();
      let fetched = (await ahead.take())!;
      // A batch whose blocks do not chain was read while the node switched
      // forks: read it again rather than store a mix of two chains.
      for (let attempt = 1; !isConsistent(opts.network, b, fetched); attempt++) {
        if (attempt > 3) throw new Error(`${opts.network}: blocks ${b.lo}–${b.hi} do not form a chain after ${attempt} reads; is the node syncing?`);
        fetched = await opts.fetchBatch(b.lo, b.hi);
      }
      const rows = await commitBatch(opts, b, fetched);
      summary.done += b.hi - b.lo + 1;
      summary.rows += rows;
      progress.advance(1, `blocks ${b.lo}–${b.hi}`);
      opts.hooks?.onBatch?.({ network: opts.network, newest: b.hi, datasets: Object.fromEntries(opts.datasets.map((d) => [d.id, fetched.rows.get(d.table)?.length ?? 0])) });
      await opts.hooks?.afterCommit?.(`${opts.network}:${b.lo}-${b.hi}`);
    }
  } finally {
    progress.stop();
  }
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

/** The tables a batch of these datasets writes rows of its block range to. */
const batchTables = (datasets: readonly ChainDataset[]): BatchTable[] => [...datasets.map((d) => blockTable(d.table)), blockTable('blocks', 'number')];

async function commitBatch(opts: IngestBlocksOptions, b: Interval, fetched: FetchedBatch): Promise<number> {
  const first = fetched.blocks[0]!;
  const ch = clickHouseOf(opts.store);
  if (ch) {
    // Checked before publishing; then written as for DuckDB into the scratch store and published (docs/storage.md).
    const prev = (await storedBlockHashes(opts.store, opts.network, [b.lo - 1])).get(b.lo - 1);
    if (prev && prev.hash !== first.parentHash) throw new ReorgDetected(b.lo);
    let rows = 0;
    await publishBatch(
      ch,
      {
        scopes: [opts.network],
        lo: b.lo,
        hi: b.hi,
        tables: batchTables(opts.datasets),
        extraTables: [],
        covers: opts.datasets.map((d) => d.id),
        uncovers: [],
      },
      async (scratch) => {
        rows = await commitBatch({ ...opts, store: scratch }, b, fetched);
      },
    );
    return rows;
  }
  return opts.store.transaction(async (tx) => {
    const [prev] = await tx.all<{ hash: string }>(`SELECT hash FROM blocks WHERE network = $network AND number = $n`, { network: opts.network, n: b.lo - 1 });
    if (prev && prev.hash !== first.parentHash) throw new ReorgDetected(b.lo);
    await deleteRange(tx, opts.network, opts.datasets, b.lo, b.hi);
    await tx.append(
      'blocks',
      fetched.blocks.map((blk) => [opts.network, blk.number, toSqlTimestamp(blk.timeMs), blk.hash, blk.parentHash]),
    );
    let rows = 0;
    for (const d of opts.datasets) {
      const r = fetched.rows.get(d.table) ?? [];
      if (r.length) await tx.append(d.table, r);
      rows += r.length;
      await addCoverage(tx, d.id, opts.network, b.lo, b.hi);
    }
    return rows;
  });
}

async function deleteRange(tx: Tx, network: string, datasets: readonly ChainDataset[], lo: number, hi: number): Promise<void> {
  const p = { network, lo, hi };
  for (const d of datasets) await tx.run(`DELETE FROM ${d.table} WHERE network = $network AND block_number BETWEEN $lo AND $hi`, p);
  await tx.run(`DELETE FROM blocks WHERE network = $network AND number BETWEEN $lo AND $hi`, p);
}

/**
 * Walks back from block `at − 1` until the stored hash equals the node's,
 * then deletes rows, blocks and coverage above that ancestor for every
 * dataset of the network, in one transaction. Returns the ancestor.
 */
async function rollbackReorg(opts: IngestBlocksOptions, at: number): Promise<number> {
  const max = opts.maxReorgDepth ?? 100;
  const fetchHash = opts.fetchHash;
  if (!fetchHash) throw new ReorgError(`${opts.network}: the chain changed below block ${at} (the parent hash differs from the stored block) and this adapter cannot look up block hashes`);
  const { ancestor } = await findCommonAncestor({
    store: opts.store,
    network: opts.network,
    from: at - 1,
    maxDepth: max,
    nodeHash: fetchHash,
    tooDeep: () => new ReorgError(`${opts.network}: reorg deeper than ${max} blocks below ${at}; re-ingest the range with --force from a block before the fork`),
  });
  const ch = clickHouseOf(opts.store);
  if (ch) {
    await rollbackClickHouse(
      ch,
      opts.network,
      ancestor,
      opts.networkDatasets.map((d) => d.id),
      batchTables(opts.networkDatasets),
    );
    return ancestor;
  }
  const hi = Math.max(at - 1, (await storedTip(opts.store, opts.network, 0)) ?? 0);
  await opts.store.transaction(async (tx) => {
    await recordOrphans(tx, opts.network, ancestor);
    await deleteRange(tx, opts.network, opts.networkDatasets, ancestor + 1, hi);
    for (const d of opts.networkDatasets) await removeCoverage(tx, d.id, opts.network, ancestor + 1, hi);
  });
  return ancestor;
}
