/**
 * A custom dataset's events of one-word values are decoded by the engine
 * from the batch's log file; the rows it stores are those the generic JS
 * decoder stores for the same logs, value for value, malformed logs
 * included (left out by both).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeAbiParameters, encodeEventTopics, type AbiEvent, type Hex, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customEndpoints, readCustomDeclaration } from '../../../catalog/custom/customEndpoints.ts';
import type { RpcLog } from '../../../protocols/evmNode.ts';
import type { ColumnValues, EngineDecoder, JsDecoder } from '../../../protocols/types.ts';
import { saveCustomDataset } from '../../../store/customDatasets.ts';
import { createStore } from '../../../store/openStore.ts';
import type { Store } from '../../../store/types.ts';
import { scanLogFile, writeLogFile } from '../logFile.ts';
import { createAbiDecoder, createAbiDecoders } from './abi.ts';
import { engineSql } from '../../../../test/helpers/engineSql.ts';

const STATIC =
  'event Moved(address indexed who, int256 indexed delta, bytes32 indexed tag, bool flag, uint256 amount, int128 mid, uint8 small, int64 signed64, uint64 big64, int24 tick, bytes3 code, address to)';
const DYNAMIC = 'event Noted(address indexed who, string note)';
const CONTRACT = '0x00000000000000000000000000000000000000c1';
const OTHER = '0x00000000000000000000000000000000000000c2';
const event = parseAbiItem(STATIC) as AbiEvent;
const dataset = readCustomDeclaration({ name: 'mixed', abi: [STATIC, DYNAMIC], networks: { ETH: { addresses: [CONTRACT], from_block: 0 } } });
const table = customEndpoints(dataset)[0]!.table;

const WIDE = [0n, 1n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 127n - 1n, 2n ** 128n - 1n, 2n ** 128n, 2n ** 192n + 5n, 2n ** 255n, 2n ** 256n - 1n];
const SIGNED = [0n, 1n, -1n, -(2n ** 63n), 2n ** 127n - 1n, -(2n ** 127n), -(2n ** 127n) - 1n, -(2n ** 128n), 2n ** 200n + 3n, -(2n ** 255n), 2n ** 255n - 1n];
const BLOCK_TIME = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 12_000);

function movedLog(i: number): RpcLog {
  const block = 10 + Math.floor(i / 4);
  const signed = SIGNED[i % SIGNED.length]!;
  const args = { who: `0x${(0xa0 + i).toString(16).padStart(40, '0')}` as Hex, delta: signed, tag: `0x${(i * 7919).toString(16).padStart(64, 'f')}` as Hex };
  const data = encodeAbiParameters(
    event.inputs.filter((p) => !p.indexed),
    [
      i % 2 === 0,
      WIDE[i % WIDE.length]!,
      i % 3 === 0 ? -(2n ** 100n) - BigInt(i) : BigInt(i) * 2n ** 90n,
      (i * 37) % 256,
      i % 2 ? -(2n ** 63n) + BigInt(i) : 2n ** 63n - 1n - BigInt(i),
      i % 2 ? 2n ** 64n - 1n - BigInt(i) : BigInt(i),
      i % 2 ? -(2 ** 23) + i : 2 ** 23 - 1 - i,
      `0x${(0xabcdef - i).toString(16).padStart(6, '0')}`,
      `0x${(0xb0 + i).toString(16).padStart(40, '0')}`,
    ],
  );
  return {
    // Mixed case, as some nodes answer: stored lowercase.
    address: (i % 5 === 1 ? CONTRACT.toUpperCase().replace('0X', '0x') : CONTRACT) as Hex,
    topics: encodeEventTopics({ abi: [event], eventName: 'Moved', args }) as Hex[],
    data: (i % 7 === 3 ? data.toUpperCase().replace('0X', '0x') : data) as Hex,
    blockNumber: `0x${block.toString(16)}`,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    transactionHash: `0x${(0xf000 + i).toString(16).padStart(64, '0')}`,
    transactionIndex: '0x0',
    logIndex: `0x${(i % 4).toString(16)}`,
  };
}

/** Logs of the event's selector that are not rows: each decoder must leave them out alike. */
function malformed(base: RpcLog, i: number): RpcLog[] {
  const word = (k: number) => 2 + 64 * k;
  const at = { blockNumber: base.blockNumber, blockHash: base.blockHash } as const;
  const key = (n: number) => ({ ...at, logIndex: `0x${(100 + i * 10 + n).toString(16)}` as Hex });
  const bool2 = `${base.data.slice(0, word(0) + 63)}2${base.data.slice(word(0) + 64)}` as Hex;
  const notHex = `${base.data.slice(0, word(1))}zz${base.data.slice(word(1) + 2)}` as Hex;
  return [
    { ...base, ...key(0), data: bool2 },
    { ...base, ...key(1), data: notHex },
    { ...base, ...key(2), topics: [...base.topics, base.topics[1]!] },
    { ...base, ...key(3), topics: base.topics.slice(0, 3) },
    { ...base, ...key(4), data: `${base.data}00` },
    { ...base, ...key(5), address: OTHER },
    { ...base, ...key(6), topics: [base.topics[0]!, `${base.topics[1]!.slice(0, 40)}` as Hex, base.topics[2]!, base.topics[3]!] },
  ];
}

let engineStore: Store;
let jsStore: Store;
let dir: string;
beforeAll(async () => {
  engineStore = await createStore({ dataDir: null, threads: 2 });
  jsStore = await createStore({ dataDir: null, threads: 2 });
  for (const s of [engineStore, jsStore]) await saveCustomDataset(s, dataset);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abi-test-'));
});
afterAll(async () => {
  await engineStore.close();
  await jsStore.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const blocksOf = (lo: number, hi: number) =>
  Array.from({ length: hi - lo + 1 }, (_, i) => ({ number: lo + i, time: BLOCK_TIME(lo + i), hash: `0x${(lo + i).toString(16).padStart(64, '0')}`, parentHash: '0x' }));
const storedRows = (s: Store) =>
  engineSql(s).all<Record<string, unknown>>(`SELECT * REPLACE (amount::VARCHAR AS amount, mid::VARCHAR AS mid, delta::VARCHAR AS delta) FROM ${table.name} ORDER BY block_number, log_index`);

describe('custom dataset decoders', () => {
  it('decodes an event of one-word values in the engine and leaves one with a string in the data to JS', () => {
    const decoders = createAbiDecoders(dataset, 'ETH');
    const engine = decoders.filter((d): d is EngineDecoder => d.engine !== undefined);
    const js = decoders.filter((d): d is JsDecoder => d.engine === undefined);
    expect(engine.map((d) => d.datasets)).toEqual([['evm/custom/mixed/moved']]);
    expect(js.map((d) => d.datasets)).toEqual([['evm/custom/mixed/noted']]);
  });

  it('stores what the JS decoder stores for the same logs, across the int256 and uint256 ranges, and leaves out the same malformed logs', async () => {
    const good = Array.from({ length: 44 }, (_, i) => movedLog(i));
    const bad = good.slice(0, 3).flatMap(malformed);
    const logs = [...good, ...bad];
    const lo = 10;
    const hi = 10 + Math.ceil(good.length / 4);
    const file = path.join(dir, 'logs.json');
    writeLogFile(file, [JSON.stringify(logs.slice(0, 20)), JSON.stringify(logs.slice(20))]);

    const engine = createAbiDecoders(dataset, 'ETH').filter((d): d is EngineDecoder => d.engine !== undefined);
    const scan = await scanLogFile(engineStore, file, { js: [], engine });
    const batch = scan.engine.get('evm/custom/mixed/moved')!;
    expect(batch.events).toBe(good.length);
    const event = engine[0]!.engine.event!;
    await engineStore.chain.publish({ network: 'ETH', lo, hi, blocks: blocksOf(lo, hi), tables: [], events: [{ event, file, events: batch.events }], covers: [], uncovers: [] });

    const rows: ColumnValues[] = [];
    const jsDecoder = createAbiDecoder(dataset, 'ETH');
    for (const log of logs) {
      jsDecoder.decode(log, {
        network: 'ETH',
        nativeSymbol: 'ETH',
        token: () => {
          throw new Error('no tokens');
        },
        pool: () => undefined,
        addPool: () => undefined,
        logKey: (l) => ({ network: 'ETH', block_number: Number(l.blockNumber), log_index: Number(l.logIndex), time: BLOCK_TIME(Number(l.blockNumber)), tx_hash: l.transactionHash }),
        txSender: () => {
          throw new Error('no senders');
        },
        emit: (_dataset, row) => rows.push(row),
      });
    }
    expect(rows.length).toBe(good.length);
    await jsStore.chain.publish({
      network: 'ETH',
      lo,
      hi,
      blocks: blocksOf(lo, hi),
      tables: [{ table: table.name, rows: rows.map((r) => table.columns.map((c) => r[c.name] ?? null)) }],
      covers: [],
      uncovers: [],
    });
    const fromEngine = await storedRows(engineStore);
    expect(fromEngine.length).toBe(good.length);
    expect(fromEngine).toEqual(await storedRows(jsStore));
  });

  it('refuses a word too wide for an integer of at most 64 bits instead of storing its low bits', async () => {
    const base = movedLog(0);
    // uint8 small is data word 3: 2^64 there.
    const at = 2 + 64 * 3;
    const wide = { ...base, data: `${base.data.slice(0, at)}${(2n ** 64n).toString(16).padStart(64, '0')}${base.data.slice(at + 64)}` as Hex };
    const file = path.join(dir, 'wide.json');
    writeLogFile(file, [JSON.stringify([wide])]);
    const engine = createAbiDecoders(dataset, 'ETH').filter((d): d is EngineDecoder => d.engine !== undefined);
    const scan = await scanLogFile(engineStore, file, { js: [], engine });
    const event = engine[0]!.engine.event!;
    await expect(
      engineStore.chain.publish({
        network: 'ARB',
        lo: 10,
        hi: 10,
        blocks: blocksOf(10, 10),
        tables: [],
        events: [{ event, file, events: scan.engine.get('evm/custom/mixed/moved')!.events }],
        covers: [],
        uncovers: [],
      }),
    ).rejects.toThrow(/at most 64 bits/);
  });
});
