/**
 * Whether gettransactioninfobyblocknum gave the infos of every transaction
 * that can emit logs. java-tron answers with the entries its stores hold, so
 * an answer can be empty or short while the block lists contract calls: the
 * TRC-20 transfers of the missing transactions would silently be absent.
 */
import { IncompleteBlockError } from '../chain/incomplete.ts';
import { TRON_NETWORK } from './decode.ts';
import { blockNumber, type TronBlock, type TronTransactionInfo } from './nodeClient.ts';

const LOG_EMITTING = new Set(['TriggerSmartContract', 'CreateSmartContract']);

/** txIDs of the block's transactions that may emit logs, in block order. */
export function contractTxIds(block: TronBlock): string[] {
  return (block.transactions ?? []).filter((tx) => LOG_EMITTING.has(tx.raw_data?.contract?.[0]?.type ?? '')).map((tx) => tx.txID.toLowerCase());
}

/** Throws IncompleteBlockError unless every contract transaction of the block has its info, and every info is of a transaction of the block. */
export function checkTransactionInfos(block: TronBlock, infos: readonly TronTransactionInfo[]): void {
  const number = blockNumber(block);
  const inBlock = new Set((block.transactions ?? []).map((tx) => tx.txID.toLowerCase()));
  const have = new Set(infos.map((i) => i.id.toLowerCase()));
  const foreign = infos.find((i) => !inBlock.has(i.id.toLowerCase()));
  if (foreign) throw new IncompleteBlockError(TRON_NETWORK, number, `transaction info ${foreign.id} is of no transaction of the block`);
  const wanted = contractTxIds(block);
  const missing = wanted.filter((id) => !have.has(id));
  if (missing.length > 0) {
    throw new IncompleteBlockError(
      TRON_NETWORK,
      number,
      `gettransactioninfobyblocknum returned ${wanted.length - missing.length} of the ${wanted.length} contract transactions' infos; missing ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`,
    );
  }
}
