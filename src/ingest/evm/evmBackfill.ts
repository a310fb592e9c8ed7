/**
 * The EVM adapter of the block pipeline (chain/commitInOrder.ts): makes
 * [from, to] covered for every planned dataset.
 *
 * The blocks some planned dataset does not cover are cut into batches, sized
 * from the events per block of the batches before them. Batches are fetched
 * ahead, then decoded and committed strictly in block order, each in one
 * store operation with its coverage (writeBatch.ts); a batch is decoded while
 * the previous one is written. Before its commit, every batch's first parent
 * hash is compared with the block before it (stored, or the batch just
 * written); on a mismatch the node's chain is walked back to the common
 * ancestor, everything stored above it is rolled back, and the missing ranges
 * are planned again. Capabilities of the planned decoders run before each
 * plan (pool discovery: discoverPools.ts).
 */
import fs from 'node:fs';
import { storedBlockHashes } from '../../store/chainReads.ts';
import { coveredIntervals, gaps, union, type Interval } from '../../store/coverage.ts';
import type { EngineBatch } from '../../protocols/types.ts';
import { getBlock, createReceiptSource } from '../rpc/actions.ts';
import type { Hex } from '../rpc/getLogs.ts';
import { findCommonAncestor } from '../chain/commonAncestor.ts';
import { commitInOrder, type PipelineOutcome } from '../chain/commitInOrder.ts';
import { decodeBatch, type DecodeEnv } from './decodeBatch.ts';
import { discoverPools } from './discoverPools.ts';
import { IngestError } from '../chain/chainRun.ts';
import { fetchSettled, nextBatchSize, type FetchContext, type FetchedEvmBatch } from './fetchBatch.ts';
import type { EvmRun } from './openEvmRun.ts';
import { rollbackAbove, writeBatch } from './writeBatch.ts';

const NO_ROWS: EngineBatch = { events: 0, tokens: [], wide: [] };

export interface BackfillCounts {
  blocks: number;
  /** Blocks asked for that every planned dataset already covered. */
  skipped: number;
  events: number;
  batches: number;
}

export interface EvmBackfill {
  /** Makes [from, to] covered for every planned dataset ('stopped' when the signal aborted first). */
  backfill(from: number, to: number, force: boolean): Promise<'done' | 'stopped'>;
  /** Walks back from `block` to the newest block whose stored hash the node agrees with, and drops everything above it. */
  reconcile(block: number): Promise<void>;
  readonly counts: Readonly<BackfillCounts>;
}

interface BackfillState {
  readonly run: EvmRun;
  readonly fetchCtx: FetchContext;
  readonly env: DecodeEnv;
  readonly fixedSize: number | undefined;
  /** Batches fetched at once. */
  readonly window: number;
  readonly maxSize: number;
  size: number;
  /** The newest batch written or being written: the one before the next batch, though it may not be stored yet. */
  last: { number: number; hash: Hex } | null;
  /**
   * Coverage of each planned dataset when the ranges were planned. Only this
   * run adds coverage, in order, so a batch that was uncovered then holds no
   * rows of that dataset now and needs no delete before its append.
   */
  plannedCoverage: Map<string, Interval[]>;
  readonly counts: BackfillCounts;
}

export function createEvmBackfill(run: EvmRun, opts: { readonly batchBlocks?: number | undefined; readonly concurrency?: number | undefined }, logDir: string): EvmBackfill {
  const { store, network, rpc, plan, tokens, pools, logs, logCheck } = run;
  const state: BackfillState = {
    run,
    fetchCtx: { store, network, logDir, rpc, logs, logCheck, plan, nativeSymbol: run.info.nativeSymbol, traces: run.traceSource, receipts: createReceiptSource(rpc), tokens },
    env: { network, nativeSymbol: run.info.nativeSymbol, plan, tokens, pools },
    fixedSize: opts.batchBlocks,
    window: opts.concurrency ?? 4,
    maxSize: opts.batchBlocks ?? (plan.native ? 500 : 2_000),
    size: opts.batchBlocks ?? 20,
    last: null,
    plannedCoverage: new Map(),
    counts: { blocks: 0, skipped: 0, events: 0, batches: 0 },
  };
  return { backfill: (from, to, force) => backfill(state, from, to, force), reconcile: (block) => reconcile(state, block), counts: state.counts };
}

async function backfill(state: BackfillState, from: number, to: number, force: boolean): Promise<'done' | 'stopped'> {
  const { run } = state;
  let all = force;
  for (let round = 0; ; round++) {
    const ranges = await missing(state, from, to, all);
    all = false;
    // Counted once per call: later rounds plan again after a reorg.
    if (round === 0) state.counts.skipped += to - from + 1 - blocksIn(ranges);
    if (ranges.length === 0) return 'done';
    run.emit({ type: 'plan', ranges, blocks: blocksIn(ranges) });
    if (run.plan.poolDiscovery) {
      await discoverPools({
        store: run.store,
        rpc: run.rpc,
        network: run.network,
        decoder: run.plan.poolDiscovery.decoder,
        discovery: run.plan.poolDiscovery.discovery,
        tokens: run.tokens,
        pools: run.pools,
        mainRanges: ranges,
        upTo: ranges[ranges.length - 1]?.hi ?? to,
        signal: run.signal,
        onNotice: (message) => run.emit({ type: 'notice', message }),
      });
    }
    const result = await runRanges(state, ranges);
    if (result !== 'reorged') return result;
  }
}

const blocksIn = (ranges: readonly Interval[]) => ranges.reduce((n, g) => n + g.hi - g.lo + 1, 0);

/** The ranges of [from, to] some planned dataset lacks (all of it when re-ingesting). */
async function missing(state: BackfillState, from: number, to: number, all: boolean): Promise<Interval[]> {
  const { store, network, plan, traces } = state.run;
  state.plannedCoverage = new Map();
  for (const d of plan.datasets) state.plannedCoverage.set(d, await coveredIntervals(store, d, network));
  if (all) {
    state.plannedCoverage = new Map(); // re-ingesting: everything may hold rows
    return [{ lo: from, hi: to }];
  }
  const out: Interval[] = [];
  for (const d of plan.datasets) out.push(...gaps(from, to, state.plannedCoverage.get(d) ?? []));
  // Blocks read without call traces are not complete once the node can trace.
  if (traces === true) for (const d of plan.blockDecoders) out.push(...gaps(from, to, await coveredIntervals(store, d.tracedCoverage, network)));
  return union(out);
}

/** Ingests `ranges` in order; stops early after a reorg so that the caller plans again. */
function runRanges(state: BackfillState, ranges: readonly Interval[]): Promise<PipelineOutcome> {
  const { run } = state;
  let r = 0;
  let cursor = ranges[0]?.lo ?? 0;
  // Each batch is sized when it is handed out, from what the batches before it held.
  const next = (): Interval | null => {
    while (r < ranges.length && cursor > (ranges[r]?.hi ?? 0)) {
      r++;
      cursor = ranges[r]?.lo ?? 0;
    }
    const range = ranges[r];
    if (!range) return null;
    const lo = cursor;
    const hi = Math.min(range.hi, lo + state.size - 1);
    cursor = hi + 1;
    return { lo, hi };
  };
  const fetch = async (lo: number, hi: number): Promise<FetchedEvmBatch> => {
    const b = await fetchSettled(state.fetchCtx, lo, hi, {
      signal: run.signal,
      onIncomplete: (e) => run.emit({ type: 'notice', message: `${e.message}; fetching blocks ${lo}–${hi} again` }),
    });
    if (!state.fixedSize) state.size = nextBatchSize(b, state.size, state.maxSize);
    return b;
  };
  return commitInOrder({
    next,
    fetch,
    window: state.window,
    signal: run.signal,
    prepare: (batch, settle) => prepareBatch(state, batch, settle),
    onFailure: () => run.abandon.abort(), // fetches still in flight stop at their next node call
    // Fetches use the store (their scans): none may outlive the run. Their log files go too.
    release: (b) => {
      if (b.logFile) fs.rmSync(b.logFile, { force: true });
    },
  });
}

/** Checks that the batch continues the chain below it (and above it, when stored), decodes it, and returns its write. */
async function prepareBatch(state: BackfillState, batch: FetchedEvmBatch, settle: () => Promise<void>): Promise<(() => Promise<void>) | null> {
  const { store, network, pools, emit } = state.run;
  const first = batch.blocks[0];
  const lastBlock = batch.blocks[batch.blocks.length - 1];
  if (!first || !lastBlock) throw new Error(`${network}: blocks ${batch.lo}–${batch.hi} came back without blocks`);
  // The previous batch (in `last`) may not be written yet, but it is the one before this batch.
  const stored = await storedBlockHashes(store, network, [batch.lo - 1, batch.hi + 1]);
  const before = state.last?.number === batch.lo - 1 ? state.last.hash : stored.get(batch.lo - 1)?.hash;
  if (before && first.parentHash !== before) {
    await settle();
    await reconcile(state, batch.lo - 1);
    return null;
  }
  const after = stored.get(batch.hi + 1);
  if (after && after.parentHash !== lastBlock.hash) {
    // What is stored above was read from a chain the node left: it goes, and is ingested again when asked for.
    await settle();
    await rollbackAbove(store, network, batch.hi);
    await pools.reload();
    emit({ type: 'reorg', ancestor: batch.hi, depth: 0, detectedAt: batch.hi + 1 });
  }
  const decoded = decodeBatch(state.env, batch);
  state.last = { number: lastBlock.number, hash: lastBlock.hash };
  return () => writeDecoded(state, batch, decoded);
}

async function writeDecoded(state: BackfillState, b: FetchedEvmBatch, decoded: ReturnType<typeof decodeBatch>): Promise<void> {
  const { store, network, plan, tokens, traces, emit } = state.run;
  const needsDelete = (dataset: string) => (state.plannedCoverage.get(dataset) ?? [{ lo: b.lo, hi: b.hi }]).some((c) => c.hi >= b.lo && c.lo <= b.hi);
  await writeBatch(store, {
    network,
    lo: b.lo,
    hi: b.hi,
    datasets: plan.datasets,
    tables: plan.tables,
    decoded,
    blocks: b.blocks,
    tokens,
    pools: plan.poolDiscovery?.discovery.dataset,
    traces,
    tracedCoverage: plan.blockDecoders.map((d) => d.tracedCoverage),
    engine: plan.engineDecoders.map((decoder) => ({ decoder, batch: b.engine.get(decoder.datasets[0] ?? '') ?? NO_ROWS })),
    logFile: b.logFile,
    fresh: plan.datasets.filter((d) => !needsDelete(d)),
  });
  if (b.logFile) fs.rmSync(b.logFile, { force: true });
  state.counts.blocks += b.blocks.length;
  state.counts.events += decoded.events;
  state.counts.batches++;
  const datasets: Record<string, number> = {};
  for (const [d, rows] of decoded.rows) datasets[d] = rows.length;
  for (const [d, e] of b.engine) datasets[d] = (datasets[d] ?? 0) + e.events;
  emit({ type: 'batch', lo: b.lo, hi: b.hi, blocks: b.blocks.length, events: decoded.events, datasets });
}

async function reconcile(state: BackfillState, block: number): Promise<void> {
  const { store, network, rpc, reorgWindow, pools, emit } = state.run;
  const { ancestor, depth } = await findCommonAncestor({
    store,
    network,
    from: block,
    maxDepth: reorgWindow,
    nodeHash: async (n) => (await getBlock(rpc, n))?.hash ?? null,
    tooDeep: (reached) =>
      new IngestError(
        `reorg deeper than ${reorgWindow} blocks on ${network}: the node's chain no longer holds stored blocks ${reached}–${block}. Check that --rpc points at the right chain; to accept the node's chain, re-ingest from an earlier block with --force --from ${Math.max(0, reached - 1)} (or raise --reorg-window)`,
      ),
  });
  await rollbackAbove(store, network, ancestor);
  await pools.reload();
  state.last = null;
  emit({ type: 'reorg', ancestor, depth, detectedAt: block });
}
