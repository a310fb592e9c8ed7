/**
 * Bitcoin blocks as the store takes them, and their transfer rows, which the
 * UTXO transfer rule (transferRule.ts) derives from each transaction.
 * Ingestion (ingestBtc.ts), the demo and the tests all make their rows here,
 * so that every row in the store follows the rule.
 */
import { btcTransfer } from '../../catalog/btc/transfer.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { ChainBatch, ChainDataset } from '../../store/types.ts';
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

/** A batch of consecutive blocks as the store publishes it (`store.chain.publish`): headers, transfer rows, coverage. */
export function btcChainBatch(blocks: readonly BtcBlock[]): ChainBatch {
  if (blocks.length === 0) throw new Error('a batch holds at least one block');
  return {
    network: BTC_NETWORK,
    lo: Math.min(...blocks.map((b) => b.number)),
    hi: Math.max(...blocks.map((b) => b.number)),
    blocks: blocks.map((b) => ({ number: b.number, time: toSqlTimestamp(b.time), hash: b.hash, parentHash: b.parentHash })),
    tables: [{ table: BTC_DATASET.table, rows: blocks.flatMap(btcTransferRows) }],
    covers: [BTC_DATASET.id],
    uncovers: [],
  };
}
