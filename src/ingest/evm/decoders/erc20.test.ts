/** The ERC-20 hot path reads the same fields as the ABI decoder, into the table's column order. */
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { erc20Transfer } from '../../../catalog/evm/erc20.ts';
import type { RpcLog } from '../../rpc/getLogs.ts';
import type { DecodeContext } from '../types.ts';
import { createErc20Decoder, TRANSFER_EVENT, transferDecoder } from './erc20.ts';

describe('erc20 decoder', () => {
  it('emits token, sender, receiver and amounts as transferDecoder reads them, in the stored column order', () => {
    const from = '0x00000000000000000000000000000000000000aa';
    const to = '0x00000000000000000000000000000000000000bb';
    const value = 123456789012345678901234567n;
    const log: RpcLog = {
      address: '0x00000000000000000000000000000000000000cc',
      topics: encodeEventTopics({ abi: [TRANSFER_EVENT], eventName: 'Transfer', args: { from, to } }) as Hex[],
      data: encodeAbiParameters([{ type: 'uint256' }], [value]),
      blockNumber: '0x10', blockHash: '0x01', transactionHash: '0xabc', transactionIndex: '0x0', logIndex: '0x3',
    };
    const rows: unknown[] = [];
    const time = new Date(1_700_000_000_000);
    const ctx = {
      network: 'ETH', nativeSymbol: 'ETH',
      token: (address: Hex) => ({ address, symbol: 'TKN', decimals: 6 }),
      logKey: () => ({ network: 'ETH', block_number: 16, log_index: 3, time, tx_hash: '0xabc' }),
      emit: (_d: string, row: unknown) => rows.push(row),
    } as unknown as DecodeContext;
    createErc20Decoder().decode(log, ctx);
    const abi = transferDecoder.decode(log)!;
    const names = erc20Transfer.table.columns.map((c) => c.name);
    expect(Object.fromEntries(names.map((n, i) => [n, (rows[0] as unknown[])[i]]))).toEqual({
      network: 'ETH', block_number: 16, log_index: 3, time, tx_hash: '0xabc',
      token_address: log.address, token: 'TKN', token_decimals: 6,
      sender: abi.from, receiver: abi.to, amount_raw: abi.value, amount: 123456789012345678901.234567,
    });
  });
});
