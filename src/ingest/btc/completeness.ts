/**
 * Whether a `getblock <hash> 3` answer holds the whole block: as many
 * transactions as its header counts (`nTx`), and every spent output
 * (`prevout`) the transfer rule reads to find funders and the sender. A
 * node that cuts the list or leaves out prevouts (a pruned node without the
 * block's undo data, a proxy truncating a large answer) must not yield a
 * covered block with transfers missing or wrongly attributed.
 */
import { IncompleteBlockError } from '../chain/incomplete.ts';
import type { BtcRpcBlock } from './rpcClient.ts';
import { BTC_NETWORK } from './writeBtcBlocks.ts';

export function checkBtcBlock(block: BtcRpcBlock): void {
  const txs = block.tx ?? [];
  if (typeof block.nTx !== 'number') throw new IncompleteBlockError(BTC_NETWORK, block.height, 'the answer has no nTx to check its transactions against');
  if (txs.length !== block.nTx) throw new IncompleteBlockError(BTC_NETWORK, block.height, `nTx is ${block.nTx}, the answer lists ${txs.length} transactions`);
  for (const tx of txs) {
    const coinbase = tx.vin[0]?.coinbase !== undefined;
    if (coinbase) continue;
    const bare = tx.vin.findIndex((vin) => vin.prevout === undefined);
    if (bare >= 0) {
      throw new IncompleteBlockError(
        BTC_NETWORK,
        block.height,
        `input ${bare} of tx ${tx.txid} has no prevout; chainq needs getblock verbosity 3 (Bitcoin Core 23 or later, with undo data: not pruned below this block)`,
      );
    }
  }
}
