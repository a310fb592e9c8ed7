/**
 * A batch's log file is parsed once, by its scan: the commit decodes the logs
 * the scan read, and the parsed table lives no longer than the batch (its
 * commit, or its file's removal when it is never committed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanLogFile, writeLogFile } from '../../src/ingest/evm/logFile.ts';
import { ERC20_ABI } from '../../src/protocols/erc20/catalog.ts';
import { createErc20Decoder } from '../../src/protocols/erc20/decoder.ts';
import type { RpcLog } from '../../src/protocols/evmNode.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

const decoder = createErc20Decoder();
const TOKEN = { address: '0x00000000000000000000000000000000000000c6', symbol: 'USDX', decimals: 6 } as const;

function transferLog(block: number, i: number, amount: bigint): RpcLog {
  const from = `0x${(0xa000 + i).toString(16).padStart(40, '0')}` as Hex;
  const to = `0x${(0xb000 + i).toString(16).padStart(40, '0')}` as Hex;
  return {
    address: TOKEN.address,
    topics: encodeEventTopics({ abi: [ERC20_ABI.transfer], eventName: 'Transfer', args: { from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }], [amount]),
    blockNumber: `0x${block.toString(16)}`,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    transactionHash: `0x${(0xf000 + i).toString(16).padStart(64, '0')}`,
    transactionIndex: '0x0',
    logIndex: `0x${i.toString(16)}`,
  };
}

let store: Store;
let dir: string;
beforeAll(async () => {
  store = await createStore({ dataDir: null, threads: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parsed-log-files-test-'));
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const parsedTables = async () => (await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = 'chainq_log_files'`))[0]?.n;

async function scanned(name: string, block: number, amounts: readonly bigint[]) {
  const file = path.join(dir, name);
  writeLogFile(file, [JSON.stringify(amounts.map((a, i) => transferLog(block, i, a)))]);
  const scan = await scanLogFile(store, file, { js: [], engine: [decoder] });
  const batch = scan.engine.get('evm/erc20/transfer');
  if (!batch) throw new Error('the scan found no transfers');
  return { file, batch };
}

const publish = (block: number, s: Awaited<ReturnType<typeof scanned>>) =>
  store.chain.publish({
    network: 'ETH',
    lo: block,
    hi: block,
    blocks: [{ number: block, time: new Date(Date.UTC(2026, 0, 1)), hash: `0x${block.toString(16).padStart(64, '0')}`, parentHash: '0x' }],
    tables: [],
    transfers: [decoder.engine.transfers({ network: 'ETH', lo: block, hi: block, file: s.file, batch: s.batch, token: () => TOKEN })],
    covers: [],
    uncovers: [],
  });

describe('parsed log files', () => {
  it('the commit stores the transfers its scan read, even when the file changed between the two', async () => {
    const s = await scanned('changed.json', 100, [5n, 7n]);
    writeLogFile(s.file, [JSON.stringify([transferLog(100, 0, 1n), transferLog(100, 1, 2n), transferLog(100, 2, 3n)])]);
    await publish(100, s);
    const rows = await engineSql(store).all<{ amount_raw: string }>(`SELECT amount_raw::VARCHAR AS amount_raw FROM evm_erc20_transfer WHERE block_number = 100 ORDER BY log_index`);
    expect(rows.map((r) => r.amount_raw)).toEqual(['5', '7']);
  });

  it("a file's parsed logs go with its commit; those of a file removed uncommitted go at the next scan", async () => {
    const before = await parsedTables();
    const committed = await scanned('committed.json', 200, [1n]);
    const abandoned = await scanned('abandoned.json', 201, [2n]);
    expect(await parsedTables()).toBe((before ?? 0n) + 2n);
    await publish(200, committed);
    expect(await parsedTables()).toBe((before ?? 0n) + 1n);
    fs.rmSync(abandoned.file);
    const next = await scanned('next.json', 202, [3n]);
    expect(await parsedTables()).toBe((before ?? 0n) + 1n);
    await publish(202, next);
    expect(await parsedTables()).toBe(before);
  });
});
