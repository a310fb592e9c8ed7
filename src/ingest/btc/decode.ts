/**
 * bitcoind `getblock <hash> 3` JSON → a BtcBlock, whose rows writeBtcBlocks.ts
 * derives by the transfer rule of transferRule.ts. Values arrive as BTC
 * numbers with 8 decimals; satoshis are exact because every amount up to 21
 * million BTC times 10^8 stays far below 2^53, so rounding the product
 * recovers it.
 */
import type { BtcRpcBlock, BtcTx } from './rpcClient.ts';
import type { UtxoTransaction } from './transferRule.ts';
import type { BtcBlock } from './writeBtcBlocks.ts';

export const satoshis = (btc: number): bigint => BigInt(Math.round(btc * 1e8));

export function utxoTransaction(tx: BtcTx, height: number): UtxoTransaction {
  const coinbase = tx.vin.length > 0 && tx.vin[0]!.coinbase !== undefined;
  return {
    txid: tx.txid,
    coinbase,
    inputs: coinbase
      ? []
      : tx.vin.map((vin) => {
          if (!vin.prevout) {
            throw new Error(`block ${height}, tx ${tx.txid}: an input has no prevout; chainq needs getblock verbosity 3 (Bitcoin Core 23 or later, with undo data: not pruned below this block)`);
          }
          return { address: vin.prevout.scriptPubKey.address ?? null, value: satoshis(vin.prevout.value) };
        }),
    outputs: tx.vout.map((o) => ({ vout: o.n, address: o.scriptPubKey.address ?? null, value: satoshis(o.value) })),
  };
}

/** The block as the store takes it: epoch-millisecond time, each transaction with its inputs' values. */
export function btcBlockOf(block: BtcRpcBlock): BtcBlock {
  return {
    number: block.height,
    time: block.time * 1000,
    hash: block.hash,
    parentHash: block.previousblockhash ?? '',
    transactions: block.tx.map((tx) => utxoTransaction(tx, block.height)),
  };
}
