/**
 * `chainq verify --network TRON`: the Tron adapter's own fetcher and decoders
 * (ingestTron.ts) read the covered blocks again for the shared comparison
 * (chain/verifyChain.ts).
 */
import { tronNativeTransfer, tronTrc20Transfer } from '../../catalog/tron/transfers.ts';
import type { Store } from '../../store/types.ts';
import { verifyChain, type ChainVerifyOptions } from '../chain/verifyChain.ts';
import type { VerifyReport } from '../evm/verifyEvm.ts';
import { nodeOrigin } from '../evm/verifyEvm.ts';
import { TRON_NETWORK } from './decode.ts';
import { createTronBatchFetcher, loadTrc20Registry } from './ingestTron.ts';
import { createTronNodeClient } from './nodeClient.ts';

export interface VerifyTronOptions extends ChainVerifyOptions {
  /** The full node HTTP API to compare with. */
  readonly api: string;
  /** TRC-20 transfers were ingested for every contract (`--all-contracts`), not only registry tokens. */
  readonly anyContract?: boolean | undefined;
}

export async function verifyTron(store: Store, opts: VerifyTronOptions): Promise<VerifyReport> {
  const client = createTronNodeClient(opts.api, opts.http, opts.signal);
  const registry = await loadTrc20Registry(store);
  const anyContract = opts.anyContract ?? false;
  // Without registry tokens ingestion kept TRC-20 transfers only with --all-contracts; the same has to be said here.
  const trc20 = registry.size > 0 || anyContract;
  const unverifiable = new Map<string, string>(trc20 ? [] : [[tronTrc20Transfer.id, 'no TRON token in the registry: pass --all-contracts if ingestion did']]);
  return verifyChain(store, {
    ...opts,
    network: TRON_NETWORK,
    node: nodeOrigin(opts.api),
    datasets: [tronNativeTransfer, ...(trc20 ? [tronTrc20Transfer] : [])].map((e) => ({ id: e.id, table: e.table })),
    unverifiable,
    fetchBatch: createTronBatchFetcher(client, { names: trc20 ? ['native', 'trc20'] : ['native'], registry, anyContract, concurrency: 8, http: opts.http }),
    batchBlocks: opts.batchBlocks ?? 100,
    concurrency: opts.concurrency ?? 2,
  });
}
