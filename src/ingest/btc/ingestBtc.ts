/**
 * The Bitcoin adapter: getblockhash + getblock <hash> 3 from bitcoind,
 * transfers by the rule of transferRule.ts, stored in batches of blocks with
 * their checkpoint (see chain/ingestBlocks.ts).
 */
import type { Store } from '../../store/types.ts';
import { Semaphore } from '../../utils/semaphore.ts';
import type { ChainIngestSummary, ChainRunOptions } from '../chain/chainRun.ts';
import { blockIngestion, nextUncovered, type FetchedBatch } from '../chain/ingestBlocks.ts';
import { fetchWhole } from '../chain/incomplete.ts';
import { runChain } from '../chain/runChain.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import type { IngestHooks } from '../progress.ts';
import { checkBtcBlock } from './completeness.ts';
import { btcBlockOf } from './decode.ts';
import { createBtcRpcClient, type BtcRpcClient } from './rpcClient.ts';
import { BTC_DATASET, BTC_NETWORK, btcTransferRows } from './writeBtcBlocks.ts';

/** Bitcoin's own options beside every chain adapter's (confirmations default 6; batches of 10 blocks). */
export interface BtcIngestOptions extends ChainRunOptions {
  readonly store: Store;
  /** http://user:pass@host:8332, or several nodes of the same chain (requests spread over them). */
  readonly rpc: string | readonly string[];
  /** getblock calls in flight at once. */
  readonly concurrency?: number;
  readonly http: HttpOptions;
  /** Test hooks (a crash after a commit). */
  readonly hooks?: IngestHooks;
}

export async function ingestBtc(opts: BtcIngestOptions): Promise<ChainIngestSummary> {
  const client = createBtcRpcClient(opts.rpc, opts.http, opts.signal);
  const fetchBatch = createBtcBatchFetcher(client, opts.concurrency ?? 4, opts.http);

  return runChain(
    {
      network: BTC_NETWORK,
      confirmations: opts.confirmations ?? 6,
      pollMs: opts.pollMs ?? 30_000,
      datasets: [BTC_DATASET.id],
      skipped: [],
      traceSource: null,
      getHead: () => client.getBlockCount(),
      resume: () => nextUncovered(opts.store, BTC_NETWORK, [BTC_DATASET]),
      ...blockIngestion({
        store: opts.store,
        network: BTC_NETWORK,
        datasets: [BTC_DATASET],
        networkDatasets: [BTC_DATASET],
        batchSize: opts.batchBlocks ?? 10,
        prefetch: 2,
        fetchBatch,
        fetchHash: async (n) => (await client.getBlockHashes([n]))[0]!,
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

/** Reads and decodes blocks lo..hi with `concurrency` getblock calls at once: ingestion stores what it returns, `chainq verify` compares it with the store. */
export function createBtcBatchFetcher(client: BtcRpcClient, concurrency: number, http: HttpOptions): (lo: number, hi: number) => Promise<FetchedBatch> {
  const slots = new Semaphore(concurrency);
  return async (lo, hi) => {
    const heights = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
    const hashes = await client.getBlockHashes(heights);
    // Each block's JSON (megabytes with verbosity 3) is reduced to its header and rows as soon as it arrives.
    const decoded = await Promise.all(
      hashes.map(async (hash) => {
        const release = await slots.acquire();
        try {
          // Asked again while it lacks transactions or prevouts; a block still short fails the batch uncovered.
          const b = btcBlockOf(await fetchWhole(http.retry, () => client.getBlock(hash), checkBtcBlock));
          return { header: { number: b.number, timeMs: b.time, hash: b.hash, parentHash: b.parentHash }, rows: btcTransferRows(b) };
        } finally {
          release();
        }
      }),
    );
    return {
      blocks: decoded.map((d) => d.header),
      rows: new Map([[BTC_DATASET.table, decoded.flatMap((d) => d.rows)]]),
    };
  };
}
