/**
 * `chainq ingest evm`: fills every planned EVM dataset of one network from a
 * JSON-RPC node.
 *
 * Backfill: the blocks of [from, to] that some planned dataset does not cover
 * are cut into batches. Several batches are fetched at once; they are decoded
 * and committed strictly in block order, each in one transaction with its
 * coverage (writeBatch.ts). Killed at any moment, a rerun fetches exactly
 * the batches that never committed.
 *
 * Follow: backfill up to head − confirmations, then poll for new blocks.
 * Before each round the stored tip's hash is compared with the node's, and
 * every batch's first parent hash with the stored block before it. On a
 * mismatch the node's chain is walked back until a block hash matches (the
 * common ancestor); everything stored above it, in every EVM dataset of the
 * network, is deleted in one transaction and ingested again. A reorg deeper
 * than `reorgWindow` blocks stops ingestion with an error.
 */
import { storedBlockHashes, storedTip } from '../../store/chainReads.ts';
import { sleep } from '../../utils/sleep.ts';
import fs from 'node:fs';
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import { networkInfo } from '../../catalog/networks.ts';
import { loadProtocols } from '../../reference/protocols.ts';
import type { Store } from '../../store/types.ts';
import { saveCustomDataset } from '../../store/customDatasets.ts';
import { coveredIntervals, gaps, union, type Interval } from '../../store/coverage.ts';
import { createReceiptSource, detectTraceSource, getBlock, getBlockNumber, getBlocks, getChainId, type TraceSource } from '../rpc/actions.ts';
import { redact } from '../http/fetchWithRetry.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import { createRpc, type RpcStats } from '../rpc/createRpc.ts';
import { createLogFetcher, type Hex, type LogFetcher, type LogFilter } from '../rpc/getLogs.ts';
import { createLogCheck } from './completeness.ts';
import { findCommonAncestor } from '../chain/commonAncestor.ts';
import { fetchAhead } from '../chain/fetchAhead.ts';
import { decodeBatch, type DecodeEnv } from './decodeBatch.ts';
import { NATIVE_DATASET } from '../../protocols/native/decoder.ts';
import { discoverPools } from './discoverPools.ts';
import { createLogDir } from './logFile.ts';
import { fetchSettled, nextBatchSize, type FetchContext, type FetchedEvmBatch } from './fetchBatch.ts';
import { planDatasets, type DatasetPlan } from './planDatasets.ts';
import { createPoolBook } from './poolBook.ts';
import { createTokenBook } from './tokenBook.ts';
import type { EngineBatch } from '../../protocols/types.ts';
import { rollbackAbove, writeBatch } from './writeBatch.ts';

export interface IngestEvmOptions {
  readonly network: string;
  /** One node's URL, or several nodes serving the same chain (requests spread over them; see createRpc). */
  readonly rpcUrl: string | readonly string[];
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly follow?: boolean | undefined;
  /** Blocks to stay behind the head; default per network (DEFAULT_CONFIRMATIONS). */
  readonly confirmations?: number | undefined;
  /** Operator protocols file laid over the shipped contract addresses. */
  readonly protocolsFile?: string | undefined;
  readonly only?: readonly string[] | undefined;
  /**
   * Operator-defined datasets to ingest besides the built-in ones
   * (docs/custom-datasets.md); each is saved (declared) before the run.
   */
  readonly custom?: readonly CustomDataset[] | undefined;
  /**
   * How native transfers read call traces: 'auto' (default) picks trace_block,
   * else debug_traceBlockByHash, else none; a method name insists on it; false
   * never reads traces (transaction values only).
   */
  readonly traces?: 'auto' | TraceSource | false | undefined;
  /** Fixed blocks per committed batch; default adaptive. */
  readonly batchBlocks?: number | undefined;
  /** Batches fetched at once. */
  readonly concurrency?: number | undefined;
  /** Requests in flight per node. */
  readonly rpcConcurrency?: number | undefined;
  /** Requests started per second per node. */
  readonly rpcMaxRate?: number | undefined;
  readonly rpcBatchSize?: number | undefined;
  /** Fixed eth_getLogs block range; default adaptive. */
  readonly getLogsRange?: number | undefined;
  /** Ingest [from, to] again even where it is covered. */
  readonly reingest?: boolean | undefined;
  readonly pollIntervalMs?: number | undefined;
  /** Deepest reorg followed before giving up. */
  readonly reorgWindow?: number | undefined;
  /** Skip the check that the node's chain id is the network's. */
  readonly skipChainCheck?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: IngestEvent) => void) | undefined;
}

export type IngestEvent =
  | { type: 'start'; network: string; datasets: readonly string[]; skipped: DatasetPlan['skipped']; traces: TraceSource | false | null; confirmations: number; head: number }
  | { type: 'plan'; ranges: readonly Interval[]; blocks: number }
  /** `datasets`: rows the batch added per dataset. */
  | { type: 'batch'; lo: number; hi: number; blocks: number; events: number; datasets: Readonly<Record<string, number>> }
  | { type: 'notice'; message: string }
  | { type: 'reorg'; ancestor: number; depth: number; detectedAt: number }
  | { type: 'caught_up'; block: number; head: number };

export interface EvmIngestSummary {
  readonly blocks: number;
  readonly events: number;
  readonly batches: number;
  readonly seconds: number;
  readonly stopped: boolean;
  readonly rpc: RpcStats;
  /** Each node's requests, failures, pace and answer time at the end of the run. */
  readonly nodes: readonly NodeStatus[];
  readonly traces: boolean | null;
}

/** A condition the operator must act on; the CLI prints its message and exits non-zero. */
export class IngestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestError';
  }
}

/** Blocks behind the head treated as final, after Ponder's finality table. */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<string, number>> = { ETH: 65, POLYGON: 200, ARB: 240 };
export const confirmationsFor = (network: string) => DEFAULT_CONFIRMATIONS[network] ?? 30;

const NO_ROWS: EngineBatch = { events: 0, tokens: [], wide: [] };

export async function ingestEvm(store: Store, opts: IngestEvmOptions): Promise<EvmIngestSummary> {
  const t0 = performance.now();
  const network = opts.network.toUpperCase();
  const info = networkInfo(network);
  if (!info || info.chainId === null) throw new IngestError(`${opts.network} is not an EVM network`);
  const emit = opts.onEvent ?? (() => undefined);
  const signal = opts.signal;
  // Aborted after a failed batch, so that the fetches still in flight end soon.
  const abandon = new AbortController();
  const rpcSignal = signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal;
  const rpc = createRpc({
    url: opts.rpcUrl,
    ...(opts.rpcConcurrency ? { concurrency: opts.rpcConcurrency } : {}),
    ...(opts.rpcMaxRate ? { maxRate: opts.rpcMaxRate } : {}),
    ...(opts.rpcBatchSize ? { batchSize: opts.rpcBatchSize } : {}),
    signal: rpcSignal,
  });

  if (!opts.skipChainCheck) {
    // Every node is asked on its own: a node of another chain would mix two chains' blocks into one store.
    for (const url of rpc.urls) {
      const chainId = await getChainId(rpc.urls.length === 1 ? rpc : createRpc({ url, signal: rpcSignal }));
      if (chainId !== info.chainId) {
        throw new IngestError(`the node at ${redact(url)} serves chain ${chainId}, but ${network} is chain ${info.chainId}; point --rpc at a ${info.name} node (or pass --skip-chain-check)`);
      }
    }
  }

  for (const d of opts.custom ?? []) {
    if (!d.networks[network]) throw new IngestError(`the custom dataset ${d.name} declares no contracts on ${network} (it declares ${Object.keys(d.networks).join(', ')})`);
    const { reset } = await saveCustomDataset(store, d);
    if (reset.includes(network)) emit({ type: 'notice', message: `${d.name}: its ${network} contracts or first block changed; what was ingested for them was dropped and is ingested again` });
  }
  // A run given custom datasets fills only them, unless --only names built-in protocols to fill as well.
  const only = opts.only ?? (opts.custom?.length ? [] : undefined);
  const plan = planDatasets(network, loadProtocols(opts.protocolsFile), only, opts.custom);
  if (plan.datasets.length === 0) {
    throw new IngestError(`nothing to ingest on ${network}: ${plan.skipped.map((s) => `${s.dataset} (${s.reason})`).join(', ') || 'no EVM dataset lists this network'}`);
  }
  const confirmations = opts.confirmations ?? confirmationsFor(network);
  const reorgWindow = opts.reorgWindow ?? Math.max(128, 2 * confirmations);
  const tokens = await createTokenBook(store, rpc, network);
  const pools = await createPoolBook(store, network);
  let head = await getBlockNumber(rpc);

  /** null: native transfers not planned; false: planned without traces; else the trace method used. */
  let traceSource: TraceSource | null = null;
  let traces: boolean | null = null;
  if (plan.native) {
    traces = false;
    if (opts.traces !== false) {
      const probe = await getBlock(rpc, Math.min(head, opts.from ?? head));
      const wanted = opts.traces === undefined || opts.traces === 'auto' ? undefined : opts.traces;
      traceSource = probe ? await detectTraceSource(rpc, { number: Number(BigInt(probe.number)), hash: probe.hash }, wanted) : null;
      if (wanted && traceSource === null)
        throw new IngestError(`the node does not answer ${wanted === 'trace_block' ? 'trace_block' : 'debug_traceBlockByHash with callTracer'}; use --traces auto or off`);
      traces = traceSource !== null;
      if (!traces) {
        emit({
          type: 'notice',
          message: `the node answers neither trace_block nor debug_traceBlockByHash (callTracer): ${NATIVE_DATASET} will hold transaction values only, without internal transfers (calls inside contracts)`,
        });
      }
    }
  }
  emit({ type: 'start', network, datasets: plan.datasets, skipped: plan.skipped, traces: traces === false ? false : traceSource, confirmations, head });

  const topic0 = [...new Set(plan.decoders.flatMap((d) => d.topic0))];
  const anyAddress = plan.decoders.some((d) => d.addresses === null);
  const logFilter: LogFilter = { topic0, ...(anyAddress ? {} : { address: [...new Set(plan.decoders.flatMap((d) => d.addresses ?? []))] }) };
  const logs: LogFetcher =
    topic0.length === 0
      ? { range: 0, calls: 0, fetch: async () => [], fetchInto: async () => undefined }
      : createLogFetcher(rpc, logFilter, {
          ...(opts.getLogsRange ? { fixedRange: opts.getLogsRange } : {}),
        });
  const logDir = createLogDir();
  try {
    const logCheck = topic0.length === 0 ? null : createLogCheck(logFilter);
    const fetchCtx: FetchContext = { store, network, logDir, rpc, logs, logCheck, plan, traces: traceSource, receipts: createReceiptSource(rpc), tokens };
    const env: DecodeEnv = { network, nativeSymbol: info.nativeSymbol, plan, tokens, pools };

    let blocksDone = 0;
    let eventsDone = 0;
    let batches = 0;
    let size = opts.batchBlocks ?? 20;
    const maxSize = opts.batchBlocks ?? (plan.native ? 500 : 2_000);
    let last: { number: number; hash: Hex } | null = null;

    const storedBlocks = (numbers: number[]) => storedBlockHashes(store, network, numbers);

    /** Walks back from `block` to the newest block whose stored hash the node agrees with, and drops everything above it. */
    async function reconcile(block: number): Promise<void> {
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
      last = null;
      emit({ type: 'reorg', ancestor, depth, detectedAt: block });
    }

    async function fetchResizing(lo: number, hi: number): Promise<FetchedEvmBatch> {
      const b = await fetchSettled(fetchCtx, lo, hi, {
        signal,
        onIncomplete: (e) => emit({ type: 'notice', message: `${e.message}; fetching blocks ${lo}–${hi} again` }),
      });
      if (!opts.batchBlocks) size = nextBatchSize(b, size, maxSize);
      return b;
    }

    /** Ingests `ranges` in order; stops early after a reorg so that the caller recomputes what is missing. */
    async function runRanges(ranges: readonly Interval[]): Promise<'done' | 'reorged' | 'stopped'> {
      let r = 0;
      let cursor = ranges[0]?.lo ?? 0;
      // Each batch is sized when it is handed out, from what the batches before it held.
      const next = (): Interval | null => {
        while (r < ranges.length && cursor > ranges[r]!.hi) {
          r++;
          cursor = ranges[r]?.lo ?? 0;
        }
        if (r >= ranges.length) return null;
        const lo = cursor;
        const hi = Math.min(ranges[r]!.hi, lo + size - 1);
        cursor = hi + 1;
        return { lo, hi };
      };
      const ahead = fetchAhead(next, fetchResizing, opts.concurrency ?? 4);
      // The commit of one batch runs in DuckDB's threads while the next is decoded.
      let writing: Promise<void> | null = null;
      const settle = async () => {
        if (writing) await writing;
        writing = null;
      };
      try {
        return await commitInOrder();
      } catch (e) {
        abandon.abort(); // fetches still in flight stop at their next node call
        throw e;
      } finally {
        // Fetches use the store (their scans): none may outlive the run. Their log files go too.
        for (const r of await ahead.settleAll()) if (r.status === 'fulfilled' && r.value.logFile) fs.rmSync(r.value.logFile, { force: true });
      }

      async function commitInOrder(): Promise<'done' | 'reorged' | 'stopped'> {
        for (;;) {
          if (signal?.aborted) {
            await settle();
            return 'stopped';
          }
          let batch: FetchedEvmBatch | null;
          try {
            batch = await ahead.take();
          } catch (e) {
            await settle();
            if (signal?.aborted) return 'stopped';
            throw e;
          }
          if (!batch) break;
          const first = batch.blocks[0]!;
          const lastBlock = batch.blocks[batch.blocks.length - 1]!;
          // The previous batch (in `last`) is not committed yet, but it is the one before this batch.
          const stored = await storedBlocks([batch.lo - 1, batch.hi + 1]);
          const before = last?.number === batch.lo - 1 ? last.hash : stored.get(batch.lo - 1)?.hash;
          if (before && first.parentHash !== before) {
            await settle();
            await reconcile(batch.lo - 1);
            return 'reorged';
          }
          const after = stored.get(batch.hi + 1);
          if (after && after.parentHash !== lastBlock.hash) {
            // What is stored above was read from a chain the node left: it goes, and is ingested again when asked for.
            await settle();
            await rollbackAbove(store, network, batch.hi);
            await pools.reload();
            emit({ type: 'reorg', ancestor: batch.hi, depth: 0, detectedAt: batch.hi + 1 });
          }
          const decoded = decodeBatch(env, batch);
          await settle();
          const b = batch;
          writing = writeBatch(store, {
            network,
            lo: b.lo,
            hi: b.hi,
            datasets: plan.datasets,
            tables: plan.tables,
            decoded,
            blocks: b.blocks,
            tokens,
            pools: !!plan.poolDiscovery,
            traces,
            engine: plan.engineDecoders.map((decoder) => ({ decoder, batch: b.engine.get(decoder.datasets[0]!) ?? NO_ROWS })),
            logFile: b.logFile,
            fresh: plan.datasets.filter((d) => !needsDelete(d, b.lo, b.hi)),
          }).then(() => {
            if (b.logFile) fs.rmSync(b.logFile, { force: true });
            blocksDone += b.blocks.length;
            eventsDone += decoded.events;
            batches++;
            const datasets: Record<string, number> = {};
            for (const [d, rows] of decoded.rows) datasets[d] = rows.length;
            for (const [d, e] of b.engine) datasets[d] = (datasets[d] ?? 0) + e.events;
            emit({ type: 'batch', lo: b.lo, hi: b.hi, blocks: b.blocks.length, events: decoded.events, datasets });
          });
          writing.catch(() => undefined); // surfaced by settle()
          last = { number: lastBlock.number, hash: lastBlock.hash };
        }
        await settle();
        return 'done';
      }
    }

    /**
     * Coverage of each planned dataset when the ranges were planned. Only this
     * run adds coverage, in order, so a batch that was uncovered then holds no
     * rows of that dataset now and needs no delete before its append.
     */
    let plannedCoverage = new Map<string, Interval[]>();
    const needsDelete = (dataset: string, lo: number, hi: number) => (plannedCoverage.get(dataset) ?? [{ lo, hi }]).some((c) => c.hi >= lo && c.lo <= hi);

    async function missing(from: number, to: number, all: boolean): Promise<Interval[]> {
      plannedCoverage = new Map();
      for (const d of plan.datasets) plannedCoverage.set(d, await coveredIntervals(store, d, network));
      if (all) {
        plannedCoverage = new Map(); // re-ingesting: everything may hold rows
        return [{ lo: from, hi: to }];
      }
      const out: Interval[] = [];
      for (const d of plan.datasets) out.push(...gaps(from, to, plannedCoverage.get(d)!));
      // Native transfers read without traces are not complete once the node can trace.
      if (traces === true) out.push(...gaps(from, to, await coveredIntervals(store, `${NATIVE_DATASET}:traces`, network)));
      return union(out);
    }

    /** Makes [from, to] covered for every planned dataset. */
    async function backfill(from: number, to: number, reingest: boolean): Promise<'done' | 'stopped'> {
      let all = reingest;
      for (;;) {
        const ranges = await missing(from, to, all);
        all = false;
        if (ranges.length === 0) return 'done';
        emit({ type: 'plan', ranges, blocks: ranges.reduce((n, g) => n + g.hi - g.lo + 1, 0) });
        if (plan.poolDiscovery) {
          await discoverPools({
            store,
            rpc,
            network,
            decoder: plan.poolDiscovery.decoder,
            discovery: plan.poolDiscovery.discovery,
            tokens,
            pools,
            mainRanges: ranges,
            upTo: ranges[ranges.length - 1]!.hi,
            signal,
            onNotice: (message) => emit({ type: 'notice', message }),
          });
        }
        const result = await runRanges(ranges);
        if (result !== 'reorged') return result;
      }
    }

    let stopped = false;
    const tipOf = (from: number) => storedTip(store, network, from);

    if (!opts.follow) {
      let from = opts.from;
      if (from === undefined) {
        // Continue after the last block ingested for the network, as the other chain adapters do.
        const tip = await tipOf(0);
        if (tip === null) throw new IngestError(`nothing of ${network} is stored yet: give --from for the first run`);
        from = tip + 1;
      }
      const requested = opts.to ?? head - confirmations;
      if (requested > head) throw new IngestError(`--to ${requested} is beyond the node's head, block ${head}`);
      const to = Math.min(requested, head - confirmations);
      if (to < requested) emit({ type: 'notice', message: `stopping at block ${to}, ${confirmations} confirmations behind the head (${head}); blocks ${to + 1}–${requested} are left for later` });
      if (to >= from) stopped = (await backfill(from, to, opts.reingest === true)) === 'stopped';
    } else {
      const storedTip = await tipOf(opts.from ?? 0);
      const from = opts.from ?? (storedTip !== null ? storedTip + 1 : Math.max(0, head - confirmations));
      let reingest = opts.reingest === true;
      let lastCaughtUp: number | null = null;
      const poll = opts.pollIntervalMs ?? 2_000;
      while (!signal?.aborted) {
        try {
          head = await getBlockNumber(rpc);
          const tip = await tipOf(from);
          if (tip !== null) {
            const [remote] = await getBlocks(rpc, [tip], false);
            const stored = (await storedBlocks([tip])).get(tip);
            if (stored && remote?.hash.toLowerCase() !== stored.hash) await reconcile(tip);
          }
          const safe = head - confirmations;
          if (safe >= from && (await backfill(from, safe, reingest)) === 'stopped') break;
          reingest = false;
          // Once per new safe block, not on every poll.
          if (safe !== lastCaughtUp) emit({ type: 'caught_up', block: safe, head });
          lastCaughtUp = safe;
        } catch (e) {
          if (signal?.aborted) break;
          throw e;
        }
        await sleep(poll, signal);
      }
      stopped = true;
    }

    return { blocks: blocksDone, events: eventsDone, batches, seconds: (performance.now() - t0) / 1000, stopped: stopped || signal?.aborted === true, rpc: rpc.stats, nodes: rpc.nodes(), traces };
  } finally {
    // Log files of batches never committed (a stop, a reorg, an error).
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}
