/**
 * Runs one ingestion job against a store, reporting what it does as plain
 * messages. The CLI without a server and a server running the job for the CLI
 * call this same function; the messages cross the operator channel as JSON
 * lines, and the CLI draws them the same way in both cases.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readCustomFile } from '../ingest/evm/customFile.ts';
import { chainProgress } from '../ingest/chain/chainProgress.ts';
import type { ChainEvent } from '../ingest/chain/chainRun.ts';
import type { EvmIngestSummary } from '../ingest/evm/ingestEvm.ts';
import type { VerifyEvent, VerifyReport, VerifySelection } from '../ingest/evm/verifyEvm.ts';
import type { HttpOptions } from '../ingest/http/fetchWithRetry.ts';
import { DEFAULT_RETRY } from '../ingest/http/retry.ts';
import type { IngestHooks, IngestProgress, IngestSummary } from '../ingest/progress.ts';
import type { TronDatasetName } from '../ingest/tron/datasets.ts';
import type { VenueAKind } from '../ingest/venues/venueAArchive.ts';
import type { VenueBDataset } from '../ingest/venues/venueBDatasets.ts';
import { loadSeed } from '../reference/importReference.ts';
import type { Store } from '../store/types.ts';
import { recordChainState } from '../store/coverage.ts';
import type { JobSpec, VerifyJobSpec } from './jobSpec.ts';
import { sleep } from '../utils/sleep.ts';

/** A call of IngestProgress, as data. */
export type ProgressCall =
  | { readonly call: 'start'; readonly label: string; readonly total: number }
  | { readonly call: 'advance'; readonly n: number; readonly unit: string }
  | { readonly call: 'note'; readonly message: string }
  | { readonly call: 'stop' };

export type JobResult =
  | { readonly source: 'evm'; readonly summary: EvmIngestSummary }
  /** The last run's report (a periodic verification runs until stopped). */
  | { readonly source: 'verify'; readonly report: VerifyReport }
  | { readonly source: 'venue_a' | 'venue_b' | 'tron' | 'btc'; readonly summary: IngestSummary; readonly seconds: number };

export type JobMessage =
  /** The server accepted the job (first message over the channel). */
  | { readonly type: 'accepted'; readonly id: string; readonly label: string }
  | { readonly type: 'evm'; readonly event: ChainEvent }
  | { readonly type: 'verify'; readonly event: VerifyEvent }
  /** A verification run ended (a periodic job sends one per run). */
  | { readonly type: 'verified'; readonly report: VerifyReport }
  | ({ readonly type: 'progress' } & ProgressCall)
  | { readonly type: 'done'; readonly result: JobResult; readonly interrupted: boolean }
  | { readonly type: 'failed'; readonly message: string; readonly interrupted?: boolean };

export interface JobObserver {
  /** Rows a committed batch added to one dataset, and the newest block it holds. */
  batch?(e: { network: string; dataset: string; rows: number; seconds: number; newest: number }): void;
  head?(e: { network: string; head: number; newest: number | null }): void;
  /** A verification run ended. */
  verified?(report: VerifyReport): void;
}

export interface RunJobContext {
  readonly store: Store;
  /** The data directory: a `protocols.json` there overrides the shipped contract addresses. */
  readonly dataDir: string | null;
  readonly signal: AbortSignal;
  readonly emit: (m: JobMessage) => void;
  readonly observe?: JobObserver;
}

/** Default confirmations of the Tron and Bitcoin adapters (their CLI defaults). */
const TRON_CONFIRMATIONS = 20;
const BTC_CONFIRMATIONS = 6;

export async function runJob(ctx: RunJobContext, spec: JobSpec): Promise<JobResult> {
  await loadSeed(ctx.store);
  if (spec.source === 'evm') return runEvm(ctx, spec);
  if (spec.source === 'verify') return runVerify(ctx, spec);
  const t0 = Date.now();
  const progress: IngestProgress = {
    start: (label, total) => ctx.emit({ type: 'progress', call: 'start', label, total }),
    advance: (n, unit) => ctx.emit({ type: 'progress', call: 'advance', n, unit }),
    note: (message) => ctx.emit({ type: 'progress', call: 'note', message }),
    stop: () => ctx.emit({ type: 'progress', call: 'stop' }),
  };
  const retries = spec.retries ?? DEFAULT_RETRY.retries;
  const nodes = spec.source === 'tron' || spec.source === 'btc' ? { nodeConcurrency: spec.nodeConcurrency, maxRate: spec.nodeMaxRate } : {};
  const http: HttpOptions = {
    timeoutMs: (spec.timeout ?? 120) * 1000,
    ...nodes,
    retry: {
      retries,
      baseDelayMs: spec.retryDelay ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: DEFAULT_RETRY.maxDelayMs,
      onRetry: (r) => progress.note(`retry ${r.attempt}/${retries} in ${(r.delayMs / 1000).toFixed(1)} s: ${r.reason}`),
    },
  };
  const hooks: IngestHooks = { signal: ctx.signal };
  const common = { store: ctx.store, http, progress, hooks, force: spec.force ?? false };
  /** A chain run's events: drawn as progress, and reported to /metrics as every chain's are. */
  const chain = (network: string, watch: ChainObserver) => {
    const draw = chainProgress(network, progress);
    return {
      store: ctx.store,
      http,
      force: spec.force ?? false,
      signal: ctx.signal,
      onEvent: (e: ChainEvent) => {
        draw(e);
        watch.onEvent(e);
      },
    };
  };
  let summary: IngestSummary;
  switch (spec.source) {
    case 'venue_a': {
      const { ingestVenueA, VENUE_A_DEFAULT_ARCHIVE } = await import('../ingest/venues/ingestVenueA.ts');
      summary = await ingestVenueA({
        ...common,
        archive: spec.archiveUrl ?? VENUE_A_DEFAULT_ARCHIVE,
        tokens: spec.token.map((t) => t.toUpperCase()),
        quote: (spec.quote ?? 'USDT').toUpperCase(),
        since: spec.since,
        until: spec.until,
        ...(spec.kinds ? { kinds: spec.kinds as VenueAKind[] } : {}),
        concurrency: spec.concurrency ?? 4,
        refresh: spec.refresh ?? false,
      });
      break;
    }
    case 'venue_b': {
      const { ingestVenueB } = await import('../ingest/venues/ingestVenueB.ts');
      const { VENUE_B_DATASETS } = await import('../ingest/venues/venueBDatasets.ts');
      const { VENUE_B_DEFAULT_INFO_URL } = await import('../ingest/venues/venueBInfo.ts');
      let datasets = (spec.datasets as VenueBDataset[] | undefined) ?? VENUE_B_DATASETS;
      if (!spec.datasets && !spec.sourceDir) {
        progress.note('no --source: skipping fills, trades and positions (they come from node fills files)');
        datasets = datasets.filter((d) => d !== 'fills');
      }
      summary = await ingestVenueB({
        ...common,
        tokens: spec.token,
        since: spec.since,
        until: spec.until,
        source: spec.sourceDir,
        infoUrl: spec.infoUrl ?? VENUE_B_DEFAULT_INFO_URL,
        datasets,
      });
      break;
    }
    case 'tron': {
      const { ingestTron } = await import('../ingest/tron/ingestTron.ts');
      const confirmations = spec.confirmations ?? TRON_CONFIRMATIONS;
      await recordChainState(ctx.store, 'TRON', { confirmations, head: null });
      const watch = chainObserver(ctx, 'TRON');
      summary = await ingestTron({
        ...chain('TRON', watch),
        api: spec.api,
        from: spec.from,
        to: spec.to,
        follow: spec.follow ?? false,
        confirmations,
        ...(spec.datasets ? { datasets: spec.datasets as TronDatasetName[] } : {}),
        anyContract: spec.allContracts ?? false,
        batchBlocks: spec.batch ?? 100,
        concurrency: spec.concurrency ?? 8,
        pollMs: (spec.poll ?? 3) * 1000,
      });
      await watch.settled();
      break;
    }
    case 'btc': {
      const { ingestBtc } = await import('../ingest/btc/ingestBtc.ts');
      const confirmations = spec.confirmations ?? BTC_CONFIRMATIONS;
      await recordChainState(ctx.store, 'BTC', { confirmations, head: null });
      const watch = chainObserver(ctx, 'BTC');
      summary = await ingestBtc({
        ...chain('BTC', watch),
        rpc: spec.rpc,
        from: spec.from,
        to: spec.to,
        follow: spec.follow ?? false,
        confirmations,
        batchBlocks: spec.batch ?? 10,
        concurrency: spec.concurrency ?? 4,
        pollMs: (spec.poll ?? 30) * 1000,
      });
      await watch.settled();
      break;
    }
  }
  return { source: spec.source, summary, seconds: (Date.now() - t0) / 1000 };
}

async function runEvm(ctx: RunJobContext, spec: Extract<JobSpec, { source: 'evm' }>): Promise<JobResult> {
  const { ingestEvm } = await import('../ingest/evm/ingestEvm.ts');
  const network = spec.network.toUpperCase();
  const beside = ctx.dataDir ? path.join(ctx.dataDir, 'protocols.json') : null;
  const protocolsFile = spec.protocols ?? (beside && fs.existsSync(beside) ? beside : undefined);
  const watch = chainObserver(ctx, network);
  const summary = await ingestEvm(ctx.store, {
    network,
    rpcUrl: spec.rpc,
    from: spec.from,
    to: spec.to,
    follow: spec.follow,
    confirmations: spec.confirmations,
    protocolsFile,
    only: spec.only,
    custom: spec.custom?.map(readCustomFile),
    traces: spec.traces === 'off' ? false : (spec.traces ?? 'auto'),
    batchBlocks: spec.batchBlocks,
    concurrency: spec.concurrency,
    rpcConcurrency: spec.rpcConcurrency,
    rpcMaxRate: spec.rpcMaxRate,
    rpcBatchSize: spec.rpcBatch,
    getLogsRange: spec.getLogsRange,
    force: spec.force,
    pollMs: (spec.pollInterval ?? 2) * 1000,
    reorgWindow: spec.reorgWindow,
    skipChainCheck: spec.skipChainCheck,
    signal: ctx.signal,
    onEvent: (event) => {
      ctx.emit({ type: 'evm', event });
      watch.onEvent(event);
    },
  });
  await watch.settled();
  return { source: 'evm', summary };
}

interface ChainObserver {
  readonly onEvent: (e: ChainEvent) => void;
  /** Resolves once the chain state writes of the events so far are done. */
  readonly settled: () => Promise<void>;
}

/**
 * What every chain run (EVM, Tron, Bitcoin) reports beside its progress: its
 * batches to /metrics, and at its start and after each follow round that
 * caught up, the node's head and the newest confirmed block to /metrics and
 * the chain state (confirmations, head) to the store.
 */
function chainObserver(ctx: RunJobContext, network: string): ChainObserver {
  const observeBatch = batchObserver(ctx, network);
  let state: Promise<void> = Promise.resolve();
  // Chain state writes are small transactions of their own; they run one after another, off the batch path.
  const recordHead = (confirmations: number, head: number) => {
    state = state.then(() => recordChainState(ctx.store, network, { confirmations, head })).catch(() => undefined);
  };
  let confirmations = 0;
  return {
    onEvent: (event) => {
      if (event.type === 'start') {
        confirmations = event.confirmations;
        recordHead(confirmations, event.head);
        ctx.observe?.head?.({ network, head: event.head, newest: null });
      } else if (event.type === 'batch') {
        observeBatch(event);
      } else if (event.type === 'caught_up') {
        recordHead(confirmations, event.head);
        ctx.observe?.head?.({ network, head: event.head, newest: event.block });
      }
    },
    settled: () => state,
  };
}

/** Reports each committed batch to /metrics: rows per dataset, the seconds since the batch before, the newest block. */
function batchObserver(ctx: RunJobContext, network: string): (e: ChainEvent) => void {
  let lastBatchAt = performance.now();
  return (e) => {
    if (e.type !== 'batch') return;
    const now = performance.now();
    for (const [dataset, rows] of Object.entries(e.datasets)) {
      ctx.observe?.batch?.({ network, dataset, rows, seconds: (now - lastBatchAt) / 1000, newest: e.hi });
    }
    lastBatchAt = now;
  };
}

function selectionOf(spec: VerifyJobSpec): VerifySelection {
  if (spec.blockStart !== undefined && spec.blockEnd !== undefined) return { kind: 'blocks', lo: spec.blockStart, hi: spec.blockEnd };
  if (spec.since !== undefined && spec.until !== undefined) return { kind: 'time', since: spec.since, until: spec.until };
  return { kind: 'all' };
}

const nodeOf = (url: string | undefined, field: string): string => {
  if (url === undefined) throw new Error(`verify: ${field} is required for this network`);
  return url;
};

/** One verification of the network's family: EVM, Tron or Bitcoin. */
async function verifyOnce(ctx: RunJobContext, spec: VerifyJobSpec, protocolsFile: string | undefined): Promise<VerifyReport> {
  const network = spec.network.toUpperCase();
  const common = {
    selection: selectionOf(spec),
    sample: spec.sample,
    batchBlocks: spec.batchBlocks,
    concurrency: spec.concurrency,
    signal: ctx.signal,
    onEvent: (event: VerifyEvent) => ctx.emit({ type: 'verify', event }),
  };
  const http: HttpOptions = { timeoutMs: 120_000, retry: DEFAULT_RETRY };
  if (network === 'TRON') {
    const { verifyTron } = await import('../ingest/tron/verifyTron.ts');
    return verifyTron(ctx.store, { ...common, http, api: nodeOf(spec.api, 'api'), anyContract: spec.allContracts });
  }
  if (network === 'BTC') {
    const { verifyBtc } = await import('../ingest/btc/verifyBtc.ts');
    return verifyBtc(ctx.store, { ...common, http, rpc: nodeOf(spec.rpc, 'rpc') });
  }
  const { verifyEvm } = await import('../ingest/evm/verifyEvm.ts');
  return verifyEvm(ctx.store, { ...common, network: spec.network, rpcUrl: nodeOf(spec.rpc, 'rpc'), protocolsFile, skipChainCheck: spec.skipChainCheck });
}

/** One verification, or with `every` one per period until the job is stopped. */
async function runVerify(ctx: RunJobContext, spec: VerifyJobSpec): Promise<JobResult> {
  const beside = ctx.dataDir ? path.join(ctx.dataDir, 'protocols.json') : null;
  const protocolsFile = spec.protocols ?? (beside && fs.existsSync(beside) ? beside : undefined);
  for (;;) {
    const report = await verifyOnce(ctx, spec, protocolsFile);
    if (!report.stopped) ctx.observe?.verified?.(report);
    ctx.emit({ type: 'verified', report });
    if (!spec.every || ctx.signal.aborted) return { source: 'verify', report };
    await sleep(spec.every * 1000, ctx.signal);
    if (ctx.signal.aborted) return { source: 'verify', report };
  }
}
