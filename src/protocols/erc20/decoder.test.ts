/**
 * The engine's ERC-20 decoding, run by DuckDB over a log file, gives the rows
 * viem's ABI decoder and scaleAmount give for the same logs, value for value,
 * across the whole uint256 range.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanLogFile, writeLogFile } from '../../ingest/evm/logFile.ts';
import { createStore } from '../../store/openStore.ts';
import type { Store } from '../../store/types.ts';
import { scaleAmount } from '../../utils/scaleAmount.ts';
import type { RpcLog } from '../evmNode.ts';
import type { TokenInfo } from '../types.ts';
import { ERC20_ABI } from './catalog.ts';
import { createErc20Decoder } from './decoder.ts';
import { engineSql } from '../../../test/helpers/engineSql.ts';

const TRANSFER_EVENT = ERC20_ABI.transfer;

const decoder = createErc20Decoder();
const TOKENS: Record<string, TokenInfo> = {
  '0x00000000000000000000000000000000000000c6': { address: '0x00000000000000000000000000000000000000c6', symbol: 'USDX', decimals: 6 },
  '0x00000000000000000000000000000000000000e8': { address: '0x00000000000000000000000000000000000000e8', symbol: 'O\'NEIL,"Q"', decimals: 18 },
  '0x00000000000000000000000000000000000000d0': { address: '0x00000000000000000000000000000000000000d0', symbol: 'ZERO', decimals: 0 },
  // Past 10^22, the largest power of ten a double holds exactly.
  '0x00000000000000000000000000000000000000f1': { address: '0x00000000000000000000000000000000000000f1', symbol: 'TINY', decimals: 23 },
  // The most a uint8 holds.
  '0x00000000000000000000000000000000000000f2': { address: '0x00000000000000000000000000000000000000f2', symbol: 'MAXD', decimals: 255 },
};
const AMOUNTS = [
  0n,
  1n,
  999_999n,
  123_456_789_012_345n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 64n - 1n,
  2n ** 64n,
  123456789012345678901234567n,
  2n ** 124n - 1n,
  2n ** 124n,
  2n ** 128n + 7n,
  2n ** 255n,
  2n ** 256n - 1n,
];
const BLOCK_TIME = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 12_000);

function transferLog(i: number, token: string, amount: bigint): RpcLog {
  const from = `0x${(0xa000 + i).toString(16).padStart(40, '0')}` as Hex;
  const to = `0x${(0xb000 + i).toString(16).padStart(40, '0')}` as Hex;
  const block = 100 + Math.floor(i / 5);
  return {
    // Mixed case, as some nodes answer: stored lowercase.
    address: (i % 2 ? token.toUpperCase().replace('0X', '0x') : token) as Hex,
    topics: encodeEventTopics({ abi: [TRANSFER_EVENT], eventName: 'Transfer', args: { from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }], [amount]),
    blockNumber: `0x${block.toString(16)}`,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    transactionHash: `0x${(0xf000 + i).toString(16).padStart(64, '0')}`,
    transactionIndex: '0x0',
    logIndex: `0x${(i % 5).toString(16)}`,
  };
}

let store: Store;
let dir: string;
beforeAll(async () => {
  store = await createStore({ dataDir: null, threads: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erc20-test-'));
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('erc20 engine decoder', () => {
  it('stores what viem decodes and scaleAmount scales, for amounts across the uint256 range and any token symbol; only logs of 3 topics and 32 data bytes count (an ERC-721 Transfer does not)', async () => {
    const tokens = Object.keys(TOKENS);
    const logs = AMOUNTS.flatMap((a, k) => tokens.map((t, j) => transferLog(k * tokens.length + j, t, a)));
    const nft = { ...transferLog(999, tokens[0]!, 1n), topics: [...logs[0]!.topics, `0x${'0'.repeat(63)}7`] as Hex[], data: '0x' as Hex, logIndex: '0x9' as Hex };
    const short = { ...transferLog(998, tokens[0]!, 1n), data: '0x01' as Hex, logIndex: '0x8' as Hex };
    const long = { ...transferLog(997, tokens[0]!, 1n), data: `${transferLog(997, tokens[0]!, 1n).data}00` as Hex, logIndex: '0x7' as Hex };
    const file = path.join(dir, 'logs.json');
    // Two pages, as two eth_getLogs answers, one of them empty.
    writeLogFile(file, [JSON.stringify(logs.slice(0, 10)), '[ ]', JSON.stringify([...logs.slice(10), nft, short, long])]);

    const scan = await scanLogFile(store, file, { js: [], engine: [decoder] });
    const batch = scan.engine.get('evm/erc20/transfer')!;
    expect(batch.events).toBe(logs.length);
    expect([...batch.tokens].sort()).toEqual(tokens.sort());
    expect(batch.wide.map((w) => BigInt(w.value)).sort()).toEqual(
      logs
        .map((l) => BigInt(l.data))
        .filter((a) => a >= 2n ** 124n)
        .sort(),
    );

    const lo = 100;
    const hi = 100 + Math.ceil(logs.length / 5);
    await store.chain.publish({
      network: 'ETH',
      lo,
      hi,
      blocks: Array.from({ length: hi - lo + 1 }, (_, i) => ({ number: lo + i, time: BLOCK_TIME(lo + i), hash: `0x${(lo + i).toString(16).padStart(64, '0')}`, parentHash: '0x' })),
      tables: [],
      transfers: [decoder.engine.transfers({ network: 'ETH', lo, hi, file, batch, token: (a) => TOKENS[a]! })],
      covers: [],
      uncovers: [],
    });
    const stored = await engineSql(store).all<Record<string, unknown>>(
      `SELECT network, block_number, log_index, time, tx_hash, token_address, token, token_decimals, sender, receiver, amount_raw::VARCHAR AS amount_raw, amount
       FROM evm_erc20_transfer ORDER BY block_number, log_index`,
    );
    const expected = logs.map((l) => {
      const args = decodeEventLog({ abi: [TRANSFER_EVENT], topics: l.topics as [Hex, ...Hex[]], data: l.data }).args;
      const token = TOKENS[l.address.toLowerCase()]!;
      const block = Number(BigInt(l.blockNumber));
      return {
        network: 'ETH',
        block_number: BigInt(block),
        log_index: Number(BigInt(l.logIndex)),
        time: BLOCK_TIME(block),
        tx_hash: l.transactionHash,
        token_address: token.address,
        token: token.symbol,
        token_decimals: token.decimals,
        sender: args.from.toLowerCase(),
        receiver: args.to.toLowerCase(),
        amount_raw: args.value.toString(),
        amount: scaleAmount(args.value, token.decimals),
      };
    });
    expect(stored).toEqual(expected);
  });

  it('refuses to drop a transfer whose block header is missing', async () => {
    const file = path.join(dir, 'orphan.json');
    writeLogFile(file, [JSON.stringify([transferLog(0, Object.keys(TOKENS)[0]!, 5n)])]);
    const scan = await scanLogFile(store, file, { js: [], engine: [decoder] });
    await expect(
      store.chain.publish({
        network: 'ARB',
        lo: 100,
        hi: 100,
        tables: [],
        transfers: [decoder.engine.transfers({ network: 'ARB', lo: 100, hi: 100, file, batch: scan.engine.get('evm/erc20/transfer')!, token: (a) => TOKENS[a]! })],
        covers: [],
        uncovers: [],
      }),
    ).rejects.toThrow(/inserted 0 of 1 transfers/);
  });
});
