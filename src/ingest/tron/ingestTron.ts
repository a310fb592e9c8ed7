/**
 * The Tron adapter: blocks from /wallet/getblockbylimitnext (TRX transfers),
 * logs from /wallet/gettransactioninfobyblocknum (TRC-20 transfers), stored
 * in batches of blocks with their checkpoint (see chain/ingestBlocks.ts).
 */
import { registryTokens } from '../../store/chainReads.ts';
import type { Store } from '../../store/types.ts';
import { Semaphore } from '../../utils/semaphore.ts';
import type { ChainIngestSummary, ChainRunOptions } from '../chain/chainRun.ts';
import { blockIngestion, nextUncovered, type FetchedBatch, type StoreRow } from '../chain/ingestBlocks.ts';
import { fetchWhole } from '../chain/incomplete.ts';
import { runChain } from '../chain/runChain.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import type { IngestHooks } from '../progress.ts';
import { checkTransactionInfos } from './completeness.ts';
import { mayHaveLogs, nativeTransfers, registryFromTokens, trc20Transfers, TRON_NETWORK, type Trc20Registry } from './decode.ts';
import { TRON_DATASETS, type TronDatasetName } from './datasets.ts';
import { blockNumber, createTronNodeClient, type TronNodeClient, type TronTransactionInfo } from './nodeClient.ts';

/** Tron's own options beside every chain adapter's (confirmations default 20: Tron solidifies after ~19 blocks; batches of 100 blocks). */
export interface TronIngestOptions extends ChainRunOptions {
  readonly store: Store;
  /** Full node HTTP API base, e.g. http://fullnode:8090, or several nodes of the same chain (requests spread over them). */
  readonly api: string | readonly string[];
  readonly datasets?: readonly TronDatasetName[];
  /** Keep TRC-20 transfers of every contract, not only registry tokens. */
  readonly anyContract?: boolean;
  /** Transaction-info calls in flight at once. */
  readonly concurrency?: number;
  readonly http: HttpOptions;
  /** Test hooks (a crash after a commit). */
  readonly hooks?: IngestHooks;
}

export async function loadTrc20Registry(store: Store): Promise<Trc20Registry> {
  return registryFromTokens(await registryTokens(store, 'TRON'));
}

export async function ingestTron(opts: TronIngestOptions): Promise<ChainIngestSummary> {
  const client = createTronNodeClient(opts.api, opts.http, opts.signal);
  const names = opts.datasets ?? ['native', 'trc20'];
  const datasets = names.map((n) => TRON_DATASETS[n]);
  const wantTrc20 = names.includes('trc20');
  const registry = wantTrc20 ? await loadTrc20Registry(opts.store) : new Map();
  if (wantTrc20 && registry.size === 0 && !opts.anyContract) {
    throw new Error('no TRON token in the registry: import tokens (chainq tokens import) or pass --all-contracts');
  }
  const fetchBatch = createTronBatchFetcher(client, { names, registry, anyContract: opts.anyContract ?? false, concurrency: opts.concurrency ?? 8, http: opts.http });

  return runChain(
    {
      network: TRON_NETWORK,
      confirmations: opts.confirmations ?? 20,
      pollMs: opts.pollMs ?? 3_000,
      datasets: datasets.map((d) => d.id),
      skipped: [],
      traceSource: null,
      getHead: () => client.getNowBlockNumber(),
      resume: () => nextUncovered(opts.store, TRON_NETWORK, datasets),
      ...blockIngestion({
        store: opts.store,
        network: TRON_NETWORK,
        datasets,
        networkDatasets: Object.values(TRON_DATASETS),
        batchSize: opts.batchBlocks ?? 100,
        prefetch: 2,
        fetchBatch,
        fetchHash: (n) => client.getBlockHash(n),
        signal: opts.signal,
        emit: opts.onEvent ?? (() => undefined),
        ...(opts.hooks ? { hooks: opts.hooks } : {}),
      }),
      nodes: () => client.nodes(),
      traces: null,
    },
    opts,
  );
}

export interface TronBatchOptions {
  readonly names: readonly TronDatasetName[];
  readonly registry: Trc20Registry;
  readonly anyContract: boolean;
  /** Transaction-info calls in flight at once. */
  readonly concurrency: number;
  readonly http: HttpOptions;
}

/** Reads and decodes blocks lo..hi: ingestion stores what it returns, `chainq verify` compares it with the store. */
export function createTronBatchFetcher(client: TronNodeClient, opts: TronBatchOptions): (lo: number, hi: number) => Promise<FetchedBatch> {
  const wantTrc20 = opts.names.includes('trc20');
  const infoSlots = new Semaphore(opts.concurrency);
  return async (lo, hi) => {
    const blocks = await client.getBlocks(lo, hi);
    const native: StoreRow[] = [];
    const trc20: StoreRow[] = [];
    const infos = await Promise.all(
      blocks.map(async (b): Promise<TronTransactionInfo[]> => {
        if (!wantTrc20 || !mayHaveLogs(b)) return [];
        const release = await infoSlots.acquire();
        try {
          // Asked again while the node's stores lack some of them; a block still short fails the batch uncovered.
          return await fetchWhole(
            opts.http.retry,
            () => client.getTransactionInfo(blockNumber(b)),
            (infos) => checkTransactionInfos(b, infos),
          );
        } finally {
          release();
        }
      }),
    );
    blocks.forEach((b, i) => {
      if (opts.names.includes('native')) native.push(...nativeTransfers(b));
      if (wantTrc20) trc20.push(...trc20Transfers(b, infos[i] ?? [], opts.registry, opts.anyContract));
    });
    return {
      blocks: blocks.map((b) => ({ number: blockNumber(b), timeMs: b.block_header.raw_data.timestamp, hash: b.blockID, parentHash: b.block_header.raw_data.parentHash })),
      rows: new Map([
        [TRON_DATASETS.native.table, native],
        [TRON_DATASETS.trc20.table, trc20],
      ]),
    };
  };
}
