/**
 * `chainq verify` on an EVM network: reads blocks the store covers again
 * from a node (ideally another one than ingestion used), decodes them with
 * ingestion's own fetcher, decoders and batch writer into an in-memory
 * store, and compares, per dataset and block, the row count and content hash
 * of what the store holds with what the node gives. Nothing is written to the
 * store but the record of the verification.
 *
 * Only blocks each dataset covers are compared for it: a block outside a
 * dataset's coverage is not claimed, so holds nothing to check.
 */
import fs from 'node:fs';
import { customEndpoints } from '../../catalog/custom/customEndpoints.ts';
import { chainEndpoints } from '../../catalog/index.ts';
import { networkInfo } from '../../catalog/networks.ts';
import { loadProtocols } from '../../reference/protocols.ts';
import { blocksAround, coveredIntervals, gaps, intersect, union, type Interval } from '../../store/coverage.ts';
import { openDecodeStore } from '../../store/openStore.ts';
import type { Store } from '../../store/types.ts';
import { listCustomDatasets, saveCustomDataset } from '../../store/customDatasets.ts';
import { clearDecoded, decodedBlockDigests, recordVerifications, storedBlockDigests, type BlockDigest, type VerificationRecord } from '../../store/verification.ts';
import { fetchAhead } from '../chain/fetchAhead.ts';
import { createReceiptSource, detectTraceSource, getBlock, getChainId, type TraceSource } from '../rpc/actions.ts';
import { createRpc, type Rpc } from '../rpc/createRpc.ts';
import { createLogFetcher, type LogFetcher, type LogFilter } from '../rpc/getLogs.ts';
import { createLogCheck } from './completeness.ts';
import { decodeBatch, type DecodeEnv } from './decodeBatch.ts';
import { fetchSettled, nextBatchSize, type FetchContext, type FetchedEvmBatch } from './fetchBatch.ts';
import { IngestError } from '../chain/chainRun.ts';
import { createLogDir } from './logFile.ts';
import { planDatasets, type DatasetPlan } from './planDatasets.ts';
import { createPoolBook } from './poolBook.ts';
import { createTokenBook } from './tokenBook.ts';
import type { EngineBatch } from '../../protocols/types.ts';
import { writeBatch } from './writeBatch.ts';

/** Which blocks to compare: an inclusive block range, a time range (epoch ms, `until` exclusive), or everything covered. */
export type VerifySelection =
  | { readonly kind: 'blocks'; readonly lo: number; readonly hi: number }
  | { readonly kind: 'time'; readonly since: number; readonly until: number }
  | { readonly kind: 'all' };

export interface VerifyEvmOptions {
  readonly network: string;
  readonly rpcUrl: string;
  readonly selection: VerifySelection;
  /** Compare this many blocks drawn at random from the selection's covered blocks instead of all of them. */
  readonly sample?: number | undefined;
  /** The operator contract addresses ingestion used (dex, lending, staking datasets need them). */
  readonly protocolsFile?: string | undefined;
  /** Blocks per fetched batch. */
  readonly batchBlocks?: number | undefined;
  /** Batches fetched at once. */
  readonly concurrency?: number | undefined;
  readonly skipChainCheck?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: VerifyEvent) => void) | undefined;
  /** Random numbers in [0, 1) for `sample` (tests pin them). */
  readonly random?: () => number;
}

export type VerifyEvent =
  | { readonly type: 'start'; readonly network: string; readonly datasets: readonly string[]; readonly skipped: readonly { dataset: string; reason: string }[]; readonly blocks: number }
  | { readonly type: 'batch'; readonly lo: number; readonly hi: number; readonly blocks: number; readonly mismatches: number }
  | { readonly type: 'notice'; readonly message: string };

/** One dataset in one block where the store and the node disagree. */
export interface VerifyMismatch {
  readonly dataset: string;
  readonly block: number;
  readonly stored: { readonly rows: number; readonly hash: string | null };
  readonly node: { readonly rows: number; readonly hash: string | null };
}

export interface VerifiedDataset {
  readonly dataset: string;
  /** Blocks compared. */
  readonly blocks: number;
  readonly storedRows: number;
  readonly nodeRows: number;
  readonly mismatches: number;
}

export interface VerifyReport {
  readonly network: string;
  /** The node's URL without credentials, path or query. */
  readonly node: string;
  readonly sampled: boolean;
  /** The blocks compared, as inclusive intervals. */
  readonly ranges: readonly Interval[];
  readonly blocks: number;
  readonly datasets: readonly VerifiedDataset[];
  /** Covered datasets of the network that could not be compared, and why. */
  readonly skipped: readonly { readonly dataset: string; readonly reason: string }[];
  readonly mismatches: readonly VerifyMismatch[];
  readonly result: 'ok' | 'mismatch';
  readonly stopped: boolean;
  readonly seconds: number;
  readonly verifiedAt: string;
}

/** scheme://host[:port] of a node URL: credentials may sit in its user part, its path (`/v3/<key>`) or its query. */
export function nodeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}

const NO_ROWS: EngineBatch = { events: 0, tokens: [], wide: [] };
const blockCount = (ranges: readonly Interval[]) => ranges.reduce((n, r) => n + r.hi - r.lo + 1, 0);

/** `n` distinct blocks of `ranges` drawn uniformly, as sorted single-block intervals merged where they touch. */
export function sampleBlocks(ranges: readonly Interval[], n: number, random: () => number): Interval[] {
  const total = blockCount(ranges);
  if (n >= total) return [...ranges];
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(random() * total));
  const blocks = [...picked]
    .sort((x, y) => x - y)
    .map((i) => {
      for (const r of ranges) {
        const len = r.hi - r.lo + 1;
        if (i < len) return r.lo + i;
        i -= len;
      }
      throw new Error('sample index out of range');
    });
  return union(blocks.map((b) => ({ lo: b, hi: b })));
}

async function selectedBlocks(store: Store, network: string, selection: VerifySelection): Promise<Interval | null> {
  if (selection.kind === 'blocks') return { lo: selection.lo, hi: selection.hi };
  if (selection.kind === 'all') return null;
  const { before, after } = await blocksAround(store, network, selection.since, selection.until);
  if (before === null) throw new IngestError(`the store holds no block of ${network} before ${new Date(selection.since).toISOString()}: give a later --since or a block range`);
  if (after === null) throw new IngestError(`the store holds no block of ${network} at or after ${new Date(selection.until).toISOString()}: give an earlier --until or a block range`);
  return { lo: before + 1, hi: after - 1 };
}

/** The protocol of each built-in EVM dataset id. */
const PROTOCOL_OF: ReadonlyMap<string, string> = new Map(chainEndpoints.filter((e) => e.family === 'evm').map((e) => [e.id, e.protocol]));

type CustomDatasets = Awaited<ReturnType<typeof listCustomDatasets>>;

/** What the store covers of every dataset the network can hold, within the selection; covered datasets that cannot be compared are set aside with their reason. */
async function coveredDatasets(
  store: Store,
  network: string,
  opts: VerifyEvmOptions,
): Promise<{ custom: CustomDatasets; coverage: Map<string, Interval[]>; skipped: { dataset: string; reason: string }[] }> {
  const window = await selectedBlocks(store, network, opts.selection);
  const custom = (await listCustomDatasets(store)).filter((d) => d.networks[network]);
  const full = planDatasets(network, loadProtocols(opts.protocolsFile), undefined, custom);
  const candidates = [
    ...new Set([...chainEndpoints.filter((e) => e.family === 'evm' && e.networks.includes(network)).map((e) => e.id), ...custom.flatMap((d) => customEndpoints(d).map((e) => e.id))]),
  ];
  const coverage = new Map<string, Interval[]>();
  for (const d of candidates) {
    const c = await coveredIntervals(store, d, network);
    const inWindow = window ? intersect(c, [window]) : c;
    if (inWindow.length) coverage.set(d, inWindow);
  }
  const skipped = [...coverage.keys()]
    .filter((d) => !full.datasets.includes(d))
    .map((d) => ({ dataset: d, reason: full.skipped.find((s) => s.dataset === d)?.reason ?? 'not planned on this network' }));
  for (const s of skipped) coverage.delete(s.dataset);
  return { custom, coverage, skipped };
}

/** Native transfers were read from call traces where the traces dataset covers them: the node must trace those blocks too. */
async function traceSourceFor(rpc: Rpc, traced: readonly Interval[], node: string): Promise<TraceSource | null> {
  const first = traced[0];
  if (!first) return null;
  const probe = await getBlock(rpc, first.lo);
  const traceSource = probe ? await detectTraceSource(rpc, { number: Number(BigInt(probe.number)), hash: probe.hash }, undefined) : null;
  if (!traceSource)
    throw new IngestError(
      `the store holds internal native transfers read from call traces, but the node at ${node} answers neither trace_block nor debug_traceBlockByHash: verify against a node that traces`,
    );
  return traceSource;
}

/** Hands out batches of `size()` blocks, each wholly inside one segment, in order. */
function segmentCursor(segments: readonly Interval[], size: () => number): () => Interval | null {
  let seg = 0;
  let cursor = segments[0]?.lo ?? 0;
  return () => {
    let r = segments[seg];
    while (r && cursor > r.hi) {
      r = segments[++seg];
      cursor = r?.lo ?? 0;
    }
    if (!r) return null;
    const lo = cursor;
    const hi = Math.min(r.hi, lo + size() - 1);
    cursor = hi + 1;
    return { lo, hi };
  };
}

/** One dataset's totals over the blocks compared. */
export interface DatasetTally {
  blocks: number;
  storedRows: number;
  nodeRows: number;
  readonly mismatchBlocks: number[];
}

export const emptyTally = (): DatasetTally => ({ blocks: 0, storedRows: 0, nodeRows: 0, mismatchBlocks: [] });

/** Compares one dataset's stored and node digests block by block, tallying into `acc` and `mismatches`; returns the blocks that differ. */
export function compareDigests(
  dataset: string,
  blocks: readonly Interval[],
  mine: ReadonlyMap<number, BlockDigest> | undefined,
  theirs: ReadonlyMap<number, BlockDigest> | undefined,
  acc: DatasetTally,
  mismatches: VerifyMismatch[],
): number {
  let found = 0;
  for (const r of blocks) {
    for (let b = r.lo; b <= r.hi; b++) {
      const s = mine?.get(b);
      const n = theirs?.get(b);
      acc.blocks++;
      acc.storedRows += s?.rows ?? 0;
      acc.nodeRows += n?.rows ?? 0;
      if (same(s, n)) continue;
      acc.mismatchBlocks.push(b);
      mismatches.push({ dataset, block: b, stored: { rows: s?.rows ?? 0, hash: s?.hash ?? null }, node: { rows: n?.rows ?? 0, hash: n?.hash ?? null } });
      found++;
    }
  }
  return found;
}

/** What a run found, as `verifyEvm` reports it. */
interface RunOutcome {
  readonly network: string;
  readonly node: string;
  readonly sampled: boolean;
  readonly ranges: Interval[];
  readonly datasets: readonly string[];
  readonly skipped: readonly { dataset: string; reason: string }[];
  readonly coverage: ReadonlyMap<string, Interval[]>;
  readonly perDataset: ReadonlyMap<string, DatasetTally>;
  readonly mismatches: VerifyMismatch[];
  readonly stopped: boolean;
  /** performance.now() at the start. */
  readonly t0: number;
  readonly verifiedAt: Date;
}

function reportOf(o: RunOutcome): VerifyReport {
  return {
    network: o.network,
    node: o.node,
    sampled: o.sampled,
    ranges: o.ranges,
    blocks: blockCount(o.ranges),
    datasets: o.datasets.map((d) => {
      const a = o.perDataset.get(d) ?? emptyTally();
      return { dataset: d, blocks: a.blocks, storedRows: a.storedRows, nodeRows: a.nodeRows, mismatches: a.mismatchBlocks.length };
    }),
    skipped: o.skipped,
    mismatches: o.mismatches.sort((a, b) => a.block - b.block || a.dataset.localeCompare(b.dataset)),
    result: o.mismatches.length ? 'mismatch' : 'ok',
    stopped: o.stopped,
    seconds: (performance.now() - o.t0) / 1000,
    verifiedAt: o.verifiedAt.toISOString(),
  };
}

/** The verification of each dataset compared, as recorded for GET /v1/coverage. */
function recordsOf(report: VerifyReport, coverage: ReadonlyMap<string, Interval[]>, perDataset: ReadonlyMap<string, DatasetTally>, verifiedAt: Date): VerificationRecord[] {
  return report.datasets.map(({ dataset }) => {
    const a = perDataset.get(dataset) ?? emptyTally();
    return {
      network: report.network,
      dataset,
      verifiedAt,
      node: report.node,
      sampled: report.sampled,
      ranges: intersect(report.ranges, coverage.get(dataset) ?? []),
      blocks: a.blocks,
      result: a.mismatchBlocks.length ? 'mismatch' : 'ok',
      mismatchBlocks: a.mismatchBlocks,
    };
  });
}

/** Only what is compared is fetched: the plan of the datasets covered here. */
function comparedPlan(network: string, protocolsFile: string | undefined, datasets: readonly string[], custom: CustomDatasets, coverage: ReadonlyMap<string, Interval[]>): DatasetPlan {
  const only = [...new Set(datasets.flatMap((d) => PROTOCOL_OF.get(d) ?? []))];
  return planDatasets(
    network,
    loadProtocols(protocolsFile),
    only,
    custom.filter((d) => customEndpoints(d).some((e) => coverage.has(e.id))),
  );
}

/** The node's logs of the plan's decoders, held to the same completeness checks as ingestion (docs/ingest-sources.md). */
function logSources(rpc: Rpc, plan: DatasetPlan): { logs: LogFetcher; logCheck: ReturnType<typeof createLogCheck> | null } {
  const topic0 = [...new Set(plan.decoders.flatMap((d) => d.topic0))];
  if (topic0.length === 0) return { logs: { range: 0, calls: 0, fetch: async () => [], fetchInto: async () => undefined }, logCheck: null };
  const anyAddress = plan.decoders.some((d) => d.addresses === null);
  const logFilter: LogFilter = { topic0, ...(anyAddress ? {} : { address: [...new Set(plan.decoders.flatMap((d) => d.addresses ?? []))] }) };
  return { logs: createLogFetcher(rpc, logFilter, {}), logCheck: createLogCheck(logFilter) };
}

/** Writes the node's rows of one batch into the in-memory store, as ingestion writes them. */
async function writeNodeRows(
  decoded: Store,
  plan: DatasetPlan,
  compared: readonly string[],
  batch: FetchedEvmBatch,
  rows: ReturnType<typeof decodeBatch>,
  tokens: Awaited<ReturnType<typeof createTokenBook>>,
  traces: boolean | null,
): Promise<void> {
  await writeBatch(decoded, {
    network: plan.network,
    lo: batch.lo,
    hi: batch.hi,
    datasets: compared,
    tables: plan.tables,
    decoded: rows,
    blocks: batch.blocks,
    tokens,
    pools: undefined,
    traces,
    tracedCoverage: plan.blockDecoders.map((d) => d.tracedCoverage),
    engine: plan.engineDecoders.flatMap((decoder) => {
      const id = decoder.datasets[0];
      return id !== undefined && compared.includes(id) ? [{ decoder, batch: batch.engine.get(id) ?? NO_ROWS }] : [];
    }),
    logFile: batch.logFile,
    fresh: compared,
  });
}

export async function verifyEvm(store: Store, opts: VerifyEvmOptions): Promise<VerifyReport> {
  const t0 = performance.now();
  const verifiedAt = new Date();
  const network = opts.network.toUpperCase();
  const info = networkInfo(network);
  if (!info || info.chainId === null) throw new IngestError(`${opts.network} is not a network chainq verify knows: it compares EVM networks, TRON and BTC`);
  const emit = opts.onEvent ?? (() => undefined);
  const signal = opts.signal;
  const abandon = new AbortController();
  const rpc = createRpc({ url: opts.rpcUrl, signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal });
  const node = nodeOrigin(opts.rpcUrl);
  if (!opts.skipChainCheck) {
    const chainId = await getChainId(rpc);
    if (chainId !== info.chainId) throw new IngestError(`the node at ${node} serves chain ${chainId}, but ${network} is chain ${info.chainId}`);
  }

  const { custom, coverage, skipped } = await coveredDatasets(store, network, opts);
  const datasets = [...coverage.keys()];

  let ranges = union([...coverage.values()].flat());
  const sampled = opts.sample !== undefined;
  if (opts.sample !== undefined) ranges = sampleBlocks(ranges, opts.sample, opts.random ?? Math.random);
  emit({ type: 'start', network, datasets, skipped, blocks: blockCount(ranges) });

  const perDataset = new Map(datasets.map((d): [string, DatasetTally] => [d, emptyTally()]));
  const mismatches: VerifyMismatch[] = [];
  let stopped = false;

  if (datasets.length > 0 && ranges.length > 0) {
    const plan = comparedPlan(network, opts.protocolsFile, datasets, custom, coverage);
    const compared = plan.datasets.filter((d) => coverage.has(d));
    const tableOf = (d: string) => {
      const t = plan.tables.get(d);
      if (!t) throw new Error(`no table planned for ${d}`);
      return t;
    };
    const decoded = await openDecodeStore();
    const logDir = createLogDir();
    try {
      for (const d of custom) await saveCustomDataset(decoded, d);
      const tokens = await createTokenBook(store, rpc, network);
      const pools = await createPoolBook(store, network);
      const env: DecodeEnv = { network, nativeSymbol: info.nativeSymbol, plan, tokens, pools };
      const { logs, logCheck } = logSources(rpc, plan);

      // Block decoders (native transfers) read call traces where their traced coverage says so, else transaction values.
      let traced = plan.native ? ranges : [];
      for (const d of plan.blockDecoders) traced = intersect(traced, await coveredIntervals(store, d.tracedCoverage, network));
      const traceSource = await traceSourceFor(rpc, traced, node);
      const isTraced = (lo: number) => traced.some((t) => t.lo <= lo && lo <= t.hi);
      const base = { store: decoded, network, logDir, rpc, logs, logCheck, plan, nativeSymbol: info.nativeSymbol, receipts: createReceiptSource(rpc), tokens };
      const contexts: Record<'traced' | 'plain', FetchContext> = { traced: { ...base, traces: traceSource }, plain: { ...base, traces: null } };
      // Each batch lies wholly inside or outside the traced blocks.
      const plainRanges = ranges.flatMap((r) => gaps(r.lo, r.hi, traced));
      const segments = [...traced, ...plainRanges].sort((a, b) => a.lo - b.lo);
      // Sized as ingestion sizes its batches, from the events per block fetched so far: every batch costs
      // a few statements on each engine whatever it holds, so quiet blocks go in larger batches.
      const maxSize = opts.batchBlocks ?? (plan.native ? 500 : 2_000);
      let size = opts.batchBlocks ?? 200;
      const next = segmentCursor(segments, () => size);
      const fetchOne = async (lo: number, hi: number): Promise<FetchedEvmBatch> => {
        const b = await fetchSettled(isTraced(lo) ? contexts.traced : contexts.plain, lo, hi, { signal });
        if (!opts.batchBlocks) size = nextBatchSize(b, size, maxSize);
        return b;
      };
      const ahead = fetchAhead(next, fetchOne, opts.concurrency ?? 4);
      try {
        for (;;) {
          if (signal?.aborted) {
            stopped = true;
            break;
          }
          const batch = await ahead.take();
          if (!batch) break;
          const span = [{ lo: batch.lo, hi: batch.hi }];
          const here = compared.filter((d) => intersect(span, coverage.get(d) ?? []).length > 0);
          // The store's digests are read while the node's rows are written and hashed: two engines, each busy at once.
          const mine = storedBlockDigests(store, here.map(tableOf), network, batch.lo, batch.hi);
          mine.catch(() => undefined); // awaited below, or settled in `finally` when the write fails
          try {
            const rows = decodeBatch(env, batch);
            await writeNodeRows(decoded, plan, compared, batch, rows, tokens, plan.native ? isTraced(batch.lo) : null);
            const theirs = await decodedBlockDigests(store, decoded, here.map(tableOf), network, batch.lo, batch.hi);
            const stored = await mine;
            let found = 0;
            here.forEach((d, k) => {
              const acc = perDataset.get(d);
              if (acc) found += compareDigests(d, intersect(span, coverage.get(d) ?? []), stored[k], theirs[k], acc, mismatches);
            });
            emit({ type: 'batch', lo: batch.lo, hi: batch.hi, blocks: batch.blocks.length, mismatches: found });
          } finally {
            await mine.catch(() => undefined);
            if (batch.logFile) fs.rmSync(batch.logFile, { force: true });
            // The in-memory store holds one batch at a time.
            await clearDecoded(decoded, [...plan.tables.values()]);
          }
        }
      } catch (e) {
        abandon.abort();
        throw e;
      } finally {
        for (const r of await ahead.settleAll()) if (r.status === 'fulfilled' && r.value.logFile) fs.rmSync(r.value.logFile, { force: true });
      }
    } finally {
      fs.rmSync(logDir, { recursive: true, force: true });
      await decoded.close();
    }
  }

  const report = reportOf({ network, node, sampled, ranges, datasets, skipped, coverage, perDataset, mismatches, stopped, t0, verifiedAt });
  // A stopped run compared only part of what it names: it is not recorded as a verification.
  if (!stopped) await recordVerifications(store, recordsOf(report, coverage, perDataset, verifiedAt));
  return report;
}

const same = (a: BlockDigest | undefined, b: BlockDigest | undefined): boolean => (a?.rows ?? 0) === (b?.rows ?? 0) && (a?.hash ?? null) === (b?.hash ?? null);
