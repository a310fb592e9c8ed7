/**
 * bitcoind `getblock <hash> 3` JSON → btc_native_transfer rows, through the
 * transfer rule of transferRule.ts. Values arrive as BTC numbers with 8
 * decimals; satoshis are exact because every amount up to 21 million BTC
 * times 10^8 stays far below 2^53, so rounding the product recovers it.
 */
import { formatUnits } from 'viem';
import { toSqlTimestamp } from '../../query/time.ts';
import type { StoreRow } from '../chain/ingestBlocks.ts';
import type { BtcBlock, BtcTx } from './rpcClient.ts';
import { transfersOf, type UtxoTransaction } from './transferRule.ts';

export const BTC_NETWORK = 'BTC';

export const satoshis = (btc: number): bigint => BigInt(Math.round(btc * 1e8));

export function utxoTransaction(tx: BtcTx, height: number): UtxoTransaction {
  const coinbase = tx.vin.length > 0 && tx.vin[0]!.coinbase !== undefined;
  return {
    txid: tx.txid,
    coinbase,
    inputs: coinbase ? [] : tx.vin.map((vin) => {
      if (!vin.prevout) {
        throw new Error(`block ${height}, tx ${tx.txid}: an input has no prevout; chainq needs getblock verbosity 3 (Bitcoin Core 23 or later, with undo data: not pruned below this block)`);
      }
      return { address: vin.prevout.scriptPubKey.address ?? null, value: satoshis(vin.prevout.value) };
    }),
    outputs: tx.vout.map((o) => ({ vout: o.n, address: o.scriptPubKey.address ?? null, value: satoshis(o.value) })),
  };
}

/** The block's transfers, in block order then output order. */
export function btcTransfers(block: BtcBlock): StoreRow[] {
  const time = toSqlTimestamp(block.time * 1000);
  const rows: StoreRow[] = [];
  block.tx.forEach((tx, txIndex) => {
    for (const t of transfersOf(utxoTransaction(tx, block.height))) {
      rows.push([BTC_NETWORK, block.height, txIndex, t.vout, time, t.txid, 'BTC', t.sender, t.receiver, t.value, Number(formatUnits(t.value, 8))]);
    }
  });
  return rows;
}
