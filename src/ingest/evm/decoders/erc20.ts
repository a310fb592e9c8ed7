/**
 * ERC-20 `Transfer` from any contract. A log counts only with exactly three
 * topics and 32 data bytes (cryo's guard): ERC-721 `Transfer` has the same
 * signature with the token id as a fourth topic, and is left out.
 */
import { parseAbiItem } from 'viem';
import { scaleAmount } from '../../../utils/scaleAmount.ts';
import type { Hex, RpcLog } from '../../rpc/getLogs.ts';
import { createEventDecoder, topicAddress } from '../eventDecoder.ts';
import type { ProtocolDecoder } from '../types.ts';
import { columnOrder } from '../writeBatch.ts';

export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
export const transferDecoder = createEventDecoder(TRANSFER_EVENT);
export const ERC20_DATASET = 'evm/erc20/transfer';

/** The 3-topic, 32-byte shape of an ERC-20 Transfer. */
export function isErc20Transfer(log: Pick<RpcLog, 'topics' | 'data'>): boolean {
  return log.topics.length === 3 && log.topics[0] === transferDecoder.selector && log.data.length === 66;
}

export function createErc20Decoder(): ProtocolDecoder {
  columnOrder(ERC20_DATASET, ['network', 'block_number', 'log_index', 'time', 'tx_hash', 'token_address', 'token', 'token_decimals', 'sender', 'receiver', 'amount_raw', 'amount']);
  return {
    protocol: 'erc20',
    datasets: [ERC20_DATASET],
    topic0: [transferDecoder.selector],
    addresses: null,
    tokensOf: (log) => (isErc20Transfer(log) ? [log.address.toLowerCase() as Hex] : []),
    needsSender: () => false,
    decode(log, ctx) {
      if (!isErc20Transfer(log)) return;
      // The hot path of every run. The shape is checked above, so the fields are
      // read directly (erc20.test.ts holds this equal to transferDecoder), and the
      // row is values in the column order checked once in createErc20Decoder.
      const token = ctx.token(log.address.toLowerCase() as Hex);
      const raw = BigInt(log.data);
      const k = ctx.logKey(log);
      const sender = topicAddress(log.topics[1]!);
      const receiver = topicAddress(log.topics[2]!);
      ctx.emit(ERC20_DATASET, [k.network, k.block_number, k.log_index, k.time, k.tx_hash, token.address, token.symbol, token.decimals, sender, receiver, raw, scaleAmount(raw, token.decimals)]);
    },
  };
}
