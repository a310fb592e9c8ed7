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

export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
export const transferDecoder = createEventDecoder(TRANSFER_EVENT);
export const ERC20_DATASET = 'evm/erc20/transfer';

/** The 3-topic, 32-byte shape of an ERC-20 Transfer. */
export function isErc20Transfer(log: Pick<RpcLog, 'topics' | 'data'>): boolean {
  return log.topics.length === 3 && log.topics[0] === transferDecoder.selector && log.data.length === 66;
}

export function createErc20Decoder(): ProtocolDecoder {
  return {
    protocol: 'erc20',
    datasets: [ERC20_DATASET],
    topic0: [transferDecoder.selector],
    addresses: null,
    tokensOf: (log) => (isErc20Transfer(log) ? [log.address.toLowerCase() as Hex] : []),
    needsSender: () => false,
    decode(log, ctx) {
      if (!isErc20Transfer(log)) return;
      // The hot path of every run: the shape is checked above, so the fields
      // are read directly (equal to transferDecoder.decode, see erc20.test.ts).
      const token = ctx.token(log.address.toLowerCase() as Hex);
      const raw = BigInt(log.data);
      ctx.emit(ERC20_DATASET, {
        ...ctx.logKey(log),
        token_address: token.address,
        token: token.symbol,
        token_decimals: token.decimals,
        sender: topicAddress(log.topics[1]!),
        receiver: topicAddress(log.topics[2]!),
        amount_raw: raw,
        amount: scaleAmount(raw, token.decimals),
      });
    },
  };
}
