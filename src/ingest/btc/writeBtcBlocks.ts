/**
 * Bitcoin blocks as the store takes them, and their transfer rows, which the
 * UTXO transfer rule (transferRule.ts) derives from each transaction.
 * Ingestion (ingestBtc.ts), the demo and the tests all make their rows here,
 * so that every row in the store follows the rule.
 */
import { btcTransfer } from '../../catalog/btc/transfer.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { Tx } from '../../store/types.ts';
import type { ChainDataset } from '../chain/ingestBlocks.ts';
import { transfersOf, type UtxoTransaction } from './transferRule.ts';

export const BTC_NETWORK = 'BTC';
export const BTC_DATASET: ChainDataset = { id: btcTransfer.id, table: btcTransfer.table.name };

export interface BtcBlock {
  readonly number: number;
  /** Block time, epoch milliseconds (whole seconds on chain). */
  readonly time: number;
  readonly hash: string;
  readonly parentHash: string;
  /** In block order; the coinbase first. */
  readonly transactions: readonly UtxoTransaction[];
}

const SATS = 100_000_000;

/** Transfer rows of one block, in block order then output order, in the column order of btc_native_transfer. */
export function btcTransferRows(block: BtcBlock): (string | number | bigint | null)[][] {
  const rows: (string | number | bigint | null)[][] = [];
  const time = toSqlTimestamp(block.time);
  block.transactions.forEach((tx, txIndex) => {
    for (const t of transfersOf(tx)) {
      rows.push([BTC_NETWORK, block.number, txIndex, t.vout, time, t.txid, 'BTC', t.sender, t.receiver, t.value, Number(t.value) / SATS]);
    }
  });
  return rows;
}

/** Replaces the rows of these blocks (idempotent by block range) and records the blocks. Call inside a transaction. */
export async function writeBtcBlocks(tx: Tx, blocks: readonly BtcBlock[]): Promise<number> {
  if (blocks.length === 0) return 0;
  const lo = Math.min(...blocks.map((b) => b.number));
  const hi = Math.max(...blocks.map((b) => b.number));
  const params = { network: BTC_NETWORK, lo, hi };
  await tx.run(`DELETE FROM btc_native_transfer WHERE network = $network AND block_number BETWEEN $lo AND $hi`, params);
  await tx.run(`DELETE FROM blocks WHERE network = $network AND number BETWEEN $lo AND $hi`, params);
  await tx.append(
    'blocks',
    blocks.map((b) => [BTC_NETWORK, b.number, toSqlTimestamp(b.time), b.hash, b.parentHash]),
  );
  const rows = blocks.flatMap(btcTransferRows);
  await tx.append('btc_native_transfer', rows);
  return rows.length;
}
