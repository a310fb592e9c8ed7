/**
 * What one `ingest evm` run sets up before its first batch: the node (one or
 * several, each checked to serve the network's chain), the operator's custom
 * datasets (declared), the datasets planned, the token and pool books, how
 * native transfers read traces, and the log fetcher. The backfill
 * (evmBackfill.ts) and the run's adapter (ingestEvm.ts) share this.
 */
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import { networkInfo, type NetworkInfo } from '../../catalog/networks.ts';
import { loadProtocols } from '../../reference/protocols.ts';
import { saveCustomDataset } from '../../store/customDatasets.ts';
import type { Store } from '../../store/types.ts';
import { redact } from '../http/fetchWithRetry.ts';
import { detectTraceSource, getBlock, getBlockNumber, getChainId, type TraceSource } from '../rpc/actions.ts';
import { createRpc, type Rpc } from '../rpc/createRpc.ts';
import { createLogFetcher, type LogFetcher, type LogFilter } from '../rpc/getLogs.ts';
import { createLogCheck, type LogCheck } from './completeness.ts';
import { IngestError, type ChainEvent } from '../chain/chainRun.ts';
import type { IngestEvmOptions } from './evmTypes.ts';
import { planDatasets, type DatasetPlan } from './planDatasets.ts';
import { createPoolBook, type PoolBook } from './poolBook.ts';
import { createTokenBook, type TokenBook } from './tokenBook.ts';

/** Blocks behind the head treated as final, after Ponder's finality table. */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<string, number>> = { ETH: 65, POLYGON: 200, ARB: 240 };
export const confirmationsFor = (network: string) => DEFAULT_CONFIRMATIONS[network] ?? 30;

export interface EvmRun {
  readonly store: Store;
  readonly network: string;
  readonly info: NetworkInfo;
  readonly emit: (e: ChainEvent) => void;
  readonly signal: AbortSignal | undefined;
  /** Aborted after a failed batch, so that the fetches still in flight end soon. */
  readonly abandon: AbortController;
  readonly rpc: Rpc;
  readonly plan: DatasetPlan;
  readonly confirmations: number;
  readonly reorgWindow: number;
  readonly tokens: TokenBook;
  readonly pools: PoolBook;
  /** The node's head when the run started. */
  readonly head: number;
  /** Native transfers from this trace method; null without traces (or without native transfers). */
  readonly traceSource: TraceSource | null;
  /** null: native transfers not planned; false: planned without traces; true: with traces. */
  readonly traces: boolean | null;
  readonly logs: LogFetcher;
  readonly logCheck: LogCheck | null;
}

export async function openEvmRun(store: Store, opts: IngestEvmOptions): Promise<EvmRun> {
  const network = opts.network.toUpperCase();
  const info = networkInfo(network);
  if (!info || info.chainId === null) throw new IngestError(`${opts.network} is not an EVM network`);
  const emit = opts.onEvent ?? (() => undefined);
  const abandon = new AbortController();
  const rpcSignal = opts.signal ? AbortSignal.any([opts.signal, abandon.signal]) : abandon.signal;
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
  const plan = await planRun(store, network, opts, emit);
  const confirmations = opts.confirmations ?? confirmationsFor(network);
  const tokens = await createTokenBook(store, rpc, network);
  const pools = await createPoolBook(store, network);
  const head = await getBlockNumber(rpc);
  const { traceSource, traces } = await traceMode(rpc, plan, head, opts, emit);
  const topic0 = [...new Set(plan.decoders.flatMap((d) => d.topic0))];
  const anyAddress = plan.decoders.some((d) => d.addresses === null);
  const logFilter: LogFilter = { topic0, ...(anyAddress ? {} : { address: [...new Set(plan.decoders.flatMap((d) => d.addresses ?? []))] }) };
  const logs: LogFetcher =
    topic0.length === 0
      ? { range: 0, calls: 0, fetch: async () => [], fetchInto: async () => undefined }
      : createLogFetcher(rpc, logFilter, { ...(opts.getLogsRange ? { fixedRange: opts.getLogsRange } : {}) });
  return {
    store,
    network,
    info,
    emit,
    signal: opts.signal,
    abandon,
    rpc,
    plan,
    confirmations,
    reorgWindow: opts.reorgWindow ?? Math.max(128, 2 * confirmations),
    tokens,
    pools,
    head,
    traceSource,
    traces,
    logs,
    logCheck: topic0.length === 0 ? null : createLogCheck(logFilter),
  };
}

/** Declares the run's custom datasets, then plans what it fills. */
async function planRun(store: Store, network: string, opts: IngestEvmOptions, emit: (e: ChainEvent) => void): Promise<DatasetPlan> {
  const custom: readonly CustomDataset[] = opts.custom ?? [];
  for (const d of custom) {
    if (!d.networks[network]) throw new IngestError(`the custom dataset ${d.name} declares no contracts on ${network} (it declares ${Object.keys(d.networks).join(', ')})`);
    const { reset } = await saveCustomDataset(store, d);
    if (reset.includes(network)) emit({ type: 'notice', message: `${d.name}: its ${network} contracts or first block changed; what was ingested for them was dropped and is ingested again` });
  }
  // A run given custom datasets fills only them, unless --only names built-in protocols to fill as well.
  const only = opts.only ?? (custom.length ? [] : undefined);
  const plan = planDatasets(network, loadProtocols(opts.protocolsFile), only, opts.custom);
  if (plan.datasets.length === 0) {
    throw new IngestError(`nothing to ingest on ${network}: ${plan.skipped.map((s) => `${s.dataset} (${s.reason})`).join(', ') || 'no EVM dataset lists this network'}`);
  }
  return plan;
}

/** How block decoders (native transfers) read blocks: the trace method the node answers (or the one insisted on), or none. */
async function traceMode(rpc: Rpc, plan: DatasetPlan, head: number, opts: IngestEvmOptions, emit: (e: ChainEvent) => void): Promise<{ traceSource: TraceSource | null; traces: boolean | null }> {
  if (plan.blockDecoders.length === 0) return { traceSource: null, traces: null };
  if (opts.traces === false) return { traceSource: null, traces: false };
  const probe = await getBlock(rpc, Math.min(head, opts.from ?? head));
  const wanted = opts.traces === undefined || opts.traces === 'auto' ? undefined : opts.traces;
  const traceSource = probe ? await detectTraceSource(rpc, { number: Number(BigInt(probe.number)), hash: probe.hash }, wanted) : null;
  if (wanted && traceSource === null)
    throw new IngestError(`the node does not answer ${wanted === 'trace_block' ? 'trace_block' : 'debug_traceBlockByHash with callTracer'}; use --traces auto or off`);
  if (traceSource === null) {
    emit({
      type: 'notice',
      message: `the node answers neither trace_block nor debug_traceBlockByHash (callTracer): ${plan.blockDecoders.map((d) => d.dataset).join(', ')} will hold transaction values only, without internal transfers (calls inside contracts)`,
    });
  }
  return { traceSource, traces: traceSource !== null };
}
