import { bytesToHex, hexToBytes, keccak256, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { RpcLog } from '../rpc/getLogs.ts';
import { checkLogsAgainstReceipts, checkReceipts, createLogCheck } from './completeness.ts';

const A: Hex = `0x${'aa'.repeat(20)}`;
const B: Hex = `0x${'bb'.repeat(20)}`;
const TRANSFER: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVAL: Hex = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

/** The yellow paper's bloom (M3:2048), written out here independently of the module. */
function bloomOf(logs: readonly { address: Hex; topics: readonly Hex[] }[]): Hex {
  const bloom = new Uint8Array(256);
  for (const l of logs) {
    for (const v of [l.address, ...l.topics]) {
      const h = hexToBytes(keccak256(v));
      for (const i of [0, 2, 4]) {
        const bit = ((h[i]! << 8) + h[i + 1]!) % 2048;
        bloom[255 - Math.floor(bit / 8)]! |= 2 ** (bit % 8);
      }
    }
  }
  return bytesToHex(bloom);
}

const log = (address: Hex, topic0: Hex, logIndex: number, tx: Hex): RpcLog => ({
  address,
  topics: [topic0],
  data: '0x',
  blockNumber: '0x10',
  blockHash: `0x${'00'.repeat(32)}`,
  transactionHash: tx,
  transactionIndex: '0x0',
  logIndex: `0x${logIndex.toString(16)}`,
});
const TX1: Hex = `0x${'01'.repeat(32)}`;
const TX2: Hex = `0x${'02'.repeat(32)}`;
const receipt = (tx: Hex, logs: RpcLog[]) => ({ transactionHash: tx, transactionIndex: '0x0' as Hex, contractAddress: null, logs });

describe('EVM completeness checks', () => {
  it("tells a bloom's false positive (A's Approval and B's Transfer, filter A's Transfer) from missing logs by the receipts", () => {
    const logs = [log(A, APPROVAL, 0, TX1), log(B, TRANSFER, 1, TX2)];
    const block = { network: 'ETH', number: 16, txHashes: [TX1, TX2], logsBloom: bloomOf(logs) };
    const check = createLogCheck({ address: [A], topic0: [TRANSFER] });
    expect(check.mayMatch(block.logsBloom)).toBe(true);
    const receiptLogs = checkReceipts(block, [receipt(TX1, [logs[0]!]), receipt(TX2, [logs[1]!])]);
    expect(() => checkLogsAgainstReceipts(block, [], receiptLogs, check)).not.toThrow();
    // The same block with A's Transfer in it, which eth_getLogs left out.
    const lied = [log(A, APPROVAL, 0, TX1), log(A, TRANSFER, 1, TX2)];
    const real = { ...block, logsBloom: bloomOf(lied) };
    expect(() => checkLogsAgainstReceipts(real, [], checkReceipts(real, [receipt(TX1, [lied[0]!]), receipt(TX2, [lied[1]!])]), check)).toThrow(
      /ETH block 16: .*returned 0 of the 1 matching logs its receipts hold/,
    );
  });

  it("accepts a receipt and logs of no transaction of the block after the others (Polygon's state-sync events)", () => {
    const logs = [log(A, TRANSFER, 0, TX1)];
    const stateSync = log(B, TRANSFER, 1, `0x${'05'.repeat(32)}`);
    const block = { network: 'POLYGON', number: 16, txHashes: [TX1], logsBloom: bloomOf(logs) };
    const check = createLogCheck({ topic0: [TRANSFER] });
    const receiptLogs = checkReceipts(block, [receipt(TX1, logs), receipt(stateSync.transactionHash, [stateSync])]);
    expect(() => checkLogsAgainstReceipts(block, [0, 1], receiptLogs, check)).not.toThrow();
    expect(() => checkLogsAgainstReceipts(block, [0], checkReceipts(block, [receipt(TX1, logs)]), check)).not.toThrow();
    expect(() => checkLogsAgainstReceipts(block, [1], receiptLogs, check)).toThrow(/missing log indices 0/);
  });

  it('says a block cannot hold matching logs when its bloom lacks the address or the topic', () => {
    const bloom = bloomOf([log(B, TRANSFER, 0, TX1)]);
    expect(createLogCheck({ address: [A], topic0: [TRANSFER] }).mayMatch(bloom)).toBe(false);
    expect(createLogCheck({ topic0: [APPROVAL] }).mayMatch(bloom)).toBe(false);
    expect(createLogCheck({ topic0: [TRANSFER] }).mayMatch(bloom)).toBe(true);
  });

  it('refuses receipts missing a transaction, out of order, or missing logs', () => {
    const logs = [log(A, TRANSFER, 0, TX1), log(B, TRANSFER, 1, TX2)];
    const block = { network: 'ETH', number: 16, txHashes: [TX1, TX2], logsBloom: bloomOf(logs) };
    expect(() => checkReceipts(block, [receipt(TX1, [logs[0]!])])).toThrow(/1 receipts for 2 transactions/);
    expect(() => checkReceipts(block, [receipt(TX1, [logs[0]!]), receipt(TX2, [logs[1]!]), receipt(TX1, [])])).toThrow(/receipt 2 repeats transaction/);
    expect(() => checkReceipts(block, [receipt(TX2, [logs[1]!]), receipt(TX1, [logs[0]!])])).toThrow(/receipt 0 is of transaction/);
    expect(() => checkReceipts(block, [receipt(TX1, []), receipt(TX2, [logs[1]!])])).toThrow(/log index 1 where 0 comes next/);
    expect(() => checkReceipts(block, [receipt(TX1, [logs[0]!]), receipt(TX2, [])])).toThrow(/do not make the header's logs bloom/);
  });

  it('cannot see a last log go whose address and topics other logs of the block also carry (a limit of the bloom)', () => {
    const logs = [log(A, TRANSFER, 0, TX1), log(A, TRANSFER, 1, TX2)];
    const block = { network: 'ETH', number: 16, txHashes: [TX1, TX2], logsBloom: bloomOf(logs) };
    expect(checkReceipts(block, [receipt(TX1, [logs[0]!]), receipt(TX2, [])])).toHaveLength(1);
  });
});
