/**
 * `chainq verify --network BTC`: the Bitcoin adapter's own fetcher and
 * transfer rule (ingestBtc.ts) read the covered blocks again for the shared
 * comparison (chain/verifyChain.ts).
 */
import { btcTransfer } from '../../catalog/btc/transfer.ts';
import type { Store } from '../../store/types.ts';
import { verifyChain, type ChainVerifyOptions } from '../chain/verifyChain.ts';
import type { VerifyReport } from '../evm/verifyEvm.ts';
import { nodeOrigin } from '../evm/verifyEvm.ts';
import { createBtcBatchFetcher } from './ingestBtc.ts';
import { createBtcRpcClient } from './rpcClient.ts';
import { BTC_NETWORK } from './writeBtcBlocks.ts';

export interface VerifyBtcOptions extends ChainVerifyOptions {
  /** bitcoind's JSON-RPC endpoint to compare with (http://user:pass@host:8332). */
  readonly rpc: string;
}

export async function verifyBtc(store: Store, opts: VerifyBtcOptions): Promise<VerifyReport> {
  const client = createBtcRpcClient(opts.rpc, opts.http, opts.signal);
  return verifyChain(store, {
    ...opts,
    network: BTC_NETWORK,
    node: nodeOrigin(opts.rpc),
    datasets: [{ id: btcTransfer.id, table: btcTransfer.table }],
    fetchBatch: createBtcBatchFetcher(client, 4, opts.http),
    batchBlocks: opts.batchBlocks ?? 10,
    concurrency: opts.concurrency ?? 2,
  });
}
