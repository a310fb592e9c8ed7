/**
 * Every ABI type a custom dataset accepts, with its edge values, end to end:
 * a contract on anvil emits the logs (LogEmitter, given the topics and data
 * viem encodes), `chainq ingest evm --custom` fills the dataset, and every
 * value served in JSON, CSV and Parquet must be the node's own eth_getLogs
 * decoded by viem, in the representation docs/custom-datasets.md states
 * ("How each ABI type is served"). On DuckDB and on ClickHouse (chDB).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AbiEvent, type AbiParameter, decodeEventLog, encodeAbiParameters, encodePacked, getAddress, type Hex, keccak256, parseAbiItem, stringToHex, toEventSelector, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createClickHouseStore } from '../helpers/clickhouseStore.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { parseExactJson } from '../helpers/exactJson.ts';
import { readParquet } from '../helpers/formats.ts';
import { createTestStore } from '../helpers/testApp.ts';

const WIDTHS = Array.from({ length: 32 }, (_, i) => 8 * (i + 1));
const maxUint = (bits: number) => 2n ** BigInt(bits) - 1n;
const maxInt = (bits: number) => 2n ** BigInt(bits - 1) - 1n;
const minInt = (bits: number) => -(2n ** BigInt(bits - 1));
const fill = (byte: string, n: number) => `0x${byte.repeat(n)}` as Hex;
const ascending = (n: number) => toHex(Uint8Array.from({ length: n }, (_, i) => i + 1));
const ZERO_ADDRESS = fill('00', 20);
const MAX_ADDRESS = fill('ff', 20);
/** Checksummed: mixed case, served in lowercase. */
const MIXED_ADDRESS = getAddress('0xabcdef0123456789abcdef0123456789abcdef01');
const MAX_UINT256 = maxUint(256);
const MIN_INT256 = minInt(256);
/** Characters a CSV, a JSON string or an SQL literal must carry through untouched. */
const AWKWARD = `naïve "quoted" 'single', comma; new\nline\r\ttab \\ back 日本語 🚀 ${'x'.repeat(40)}`;

/** One event of the dataset and the argument lists of the logs emitted for it. */
interface Case {
  readonly signature: string;
  readonly rows: readonly (readonly unknown[])[];
  /**
   * Encodes the data with these types instead of the event's (the same
   * layout): a `string` given as raw bytes, to emit text that is not UTF-8.
   */
  readonly dataTypes?: readonly string[];
}

const CASES: readonly Case[] = [
  {
    signature: `event Unsigned(${WIDTHS.map((b) => `uint${b} u${b}`).join(', ')})`,
    rows: [WIDTHS.map(() => 0n), WIDTHS.map(() => 1n), WIDTHS.map((b) => maxUint(b)), WIDTHS.map((b) => 2n ** BigInt(b - 1))],
  },
  {
    signature: `event Signed(${WIDTHS.map((b) => `int${b} i${b}`).join(', ')})`,
    rows: [WIDTHS.map(() => 0n), WIDTHS.map(() => 1n), WIDTHS.map(() => -1n), WIDTHS.map((b) => maxInt(b)), WIDTHS.map((b) => minInt(b))],
  },
  {
    signature: `event FixedBytes(${WIDTHS.map((_, i) => `bytes${i + 1} b${i + 1}`).join(', ')})`,
    rows: [WIDTHS.map((_, i) => fill('00', i + 1)), WIDTHS.map((_, i) => fill('ff', i + 1)), WIDTHS.map((_, i) => ascending(i + 1))],
  },
  {
    // `from` and `to`: input names that are SQL keywords, and address filters of their own name.
    signature: 'event Scalars(address indexed from, address to, bool yes, bool no, string text, bytes blob)',
    rows: [
      [ZERO_ADDRESS, MAX_ADDRESS, false, false, '', '0x'],
      [MIXED_ADDRESS, ZERO_ADDRESS, true, false, AWKWARD, '0x00'],
      [MAX_ADDRESS, MIXED_ADDRESS, true, true, 'x', toHex(Uint8Array.from({ length: 300 }, (_, i) => i % 256))],
    ],
  },
  {
    // Text as the log holds it: bytes, some of them not UTF-8, which viem decodes with U+FFFD.
    signature: 'event Text(string text)',
    dataTypes: ['bytes'],
    rows: [['0x'], [stringToHex(AWKWARD)], ['0x00'], [stringToHex('a\u0000b')], ['0xff'], ['0x61c3']],
  },
  {
    signature: 'event IndexedWide(uint256 indexed big, int256 indexed wide, int8 indexed small)',
    rows: [
      [0n, 0n, 0],
      [MAX_UINT256, MIN_INT256, -128],
      [1n, maxInt(256), 127],
    ],
  },
  {
    signature: 'event IndexedStatic(bool indexed flag, bytes1 indexed b1, bytes32 indexed b32)',
    rows: [
      [false, '0x00', fill('00', 32)],
      [true, '0xff', fill('ff', 32)],
    ],
  },
  {
    signature: 'event IndexedMore(address indexed who, uint64 indexed big64, int64 indexed small64)',
    rows: [
      [ZERO_ADDRESS, 0n, minInt(64)],
      [MAX_ADDRESS, maxUint(64), maxInt(64)],
    ],
  },
  {
    signature: 'event IndexedDynamic(string indexed label, bytes indexed blob, uint256[] indexed ids)',
    rows: [
      ['', '0x', []],
      [AWKWARD, '0xdeadbeef', [0n, MAX_UINT256]],
    ],
  },
  {
    signature: 'event IndexedComposite((uint256 a, bool b) indexed pair, uint8[2] indexed duo, uint256 amount)',
    rows: [
      [{ a: 0n, b: false }, [0, 0], 0n],
      [{ a: MAX_UINT256, b: true }, [255, 1], MAX_UINT256],
    ],
  },
  {
    signature: 'event Arrays(uint256[] ids, int8[3] small, address[] who, bool[2] flags, string[] names, bytes[] blobs, bytes32[2] hashes, uint64[][] nested, int256[2][] grid, bytes1[] singles)',
    rows: [
      [[], [0, 0, 0], [], [false, false], [], [], [fill('00', 32), fill('00', 32)], [], [], []],
      [
        [0n, 1n, MAX_UINT256],
        [-128, 0, 127],
        [MIXED_ADDRESS, ZERO_ADDRESS],
        [true, false],
        ['', AWKWARD],
        ['0x', '0x00ff'],
        [fill('ab', 32), fill('ff', 32)],
        [[], [0n, maxUint(64)]],
        [
          [MIN_INT256, maxInt(256)],
          [0n, -1n],
        ],
        ['0x00', '0xff'],
      ],
    ],
  },
  {
    signature: 'event Tuples((uint256 x, (int8 y, string z, bytes w)[] inner, (address a, bool b) pair) outer, (uint8, string) anon, (uint256 a, bool b)[2] pairs, (int256 v)[] singles)',
    rows: [
      [
        { x: 0n, inner: [], pair: { a: ZERO_ADDRESS, b: false } },
        [0, ''],
        [
          { a: 0n, b: false },
          { a: 0n, b: false },
        ],
        [],
      ],
      [
        {
          x: MAX_UINT256,
          inner: [
            { y: -128, z: AWKWARD, w: '0x' },
            { y: 127, z: '', w: '0xdead' },
          ],
          pair: { a: MIXED_ADDRESS, b: true },
        },
        [255, '"q"'],
        [
          { a: 1n, b: true },
          { a: MAX_UINT256, b: false },
        ],
        [{ v: MIN_INT256 }, { v: 0n }],
      ],
    ],
  },
];

const EVENTS: readonly AbiEvent[] = CASES.map((c) => parseAbiItem(c.signature) as AbiEvent);

/** `ERC20Moved` → `erc20_moved`, as the service names event paths. */
const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

const isInteger = (type: string) => /^u?int\d*$/.test(type);
const bitsOf = (type: string) => Number(/\d+$/.exec(type)?.[0] ?? 256);
const isComposite = (type: string) => type.endsWith(']') || type.startsWith('tuple');

/** The topic of an indexed value: the value itself when static, else the keccak256 of its in-place encoding (as solc hashes it). */
function topicOf(p: AbiParameter, v: unknown): Hex {
  if (p.type === 'string') return keccak256(stringToHex(v as string));
  if (p.type === 'bytes') return keccak256(v as Hex);
  if (p.type.endsWith('[]')) return keccak256(encodePacked([p.type], [v]));
  // A static array or tuple of static values: its in-place encoding is its ABI encoding.
  if (isComposite(p.type)) return keccak256(encodeAbiParameters([p], [v]));
  return encodeAbiParameters([p], [v]);
}

/** The documented form of a value inside an array or tuple's JSON text. */
function inner(p: AbiParameter, v: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(p.type);
  if (array) return (v as unknown[]).map((x) => inner({ ...p, type: array[1]! }, x));
  if (p.type === 'tuple' && 'components' in p) {
    const values = Array.isArray(v) ? v : p.components.map((c) => (v as Record<string, unknown>)[c.name ?? '']);
    return Object.fromEntries(p.components.map((c, i) => [c.name || String(i), inner(c, values[i])]));
  }
  if (isInteger(p.type)) return String(v);
  if (p.type === 'address' || p.type.startsWith('bytes')) return String(v).toLowerCase();
  return v;
}

type Served = string | boolean | bigint;

/** What the service serves for one decoded value, by ABI type (docs/custom-datasets.md). `bigint` marks an integer served as a number. */
function servedValue(p: AbiEvent['inputs'][number], v: unknown): Served {
  if (p.indexed && (p.type === 'string' || p.type === 'bytes' || isComposite(p.type))) return String(v).toLowerCase();
  if (isComposite(p.type)) return JSON.stringify(inner(p, v));
  if (isInteger(p.type)) return bitsOf(p.type) <= 64 ? BigInt(v as number | bigint) : String(v);
  if (p.type === 'bool') return v as boolean;
  if (p.type === 'string') return v as string;
  return String(v).toLowerCase();
}

interface NodeLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
}

describe.each(['duckdb', 'chdb'] as const)('every ABI type of a custom dataset, served exactly (anvil, %s)', (engine) => {
  let anvil: Anvil;
  let chain: Chain;
  let dir: string;
  let store: Store;
  /** A DuckDB store to read Parquet bodies with. */
  let reader: Store;
  let app: FastifyInstance;
  let key: string;
  let from: number;
  let to: number;
  let nodeLogs: NodeLog[];

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const url = (e: AbiEvent, format: string) => `/v1/evm/custom/abi_types/events/${snake(e.name)}?network=ETH&block_start=${from}&block_end=${to}&with_time=false&format=${format}`;

  /** Per log of the event, in block order: each input's name and served value, from viem's decoding of the node's log. */
  function expected(e: AbiEvent): [string, Served][][] {
    return nodeLogs
      .filter((l) => l.topics[0] === toEventSelector(e))
      .map((l) => {
        const args = decodeEventLog({ abi: EVENTS, data: l.data, topics: l.topics }).args as unknown as Record<string, unknown> | unknown[];
        return e.inputs.map((p, i): [string, Served] => [p.name || `arg${i}`, servedValue(p, Array.isArray(args) ? args[i] : args[p.name || String(i)])]);
      });
  }

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    from = (await chain.blockNumber()) + 1;
    const emitter = await chain.deploy('LogEmitter');
    for (const [c, e] of CASES.map((c, i) => [c, EVENTS[i]!] as const)) {
      const indexed = e.inputs.filter((p) => p.indexed);
      const plain = e.inputs.filter((p) => !p.indexed);
      for (const row of c.rows) {
        const args = e.inputs.map((_, i) => row[i]);
        const topics = [toEventSelector(e), ...indexed.map((p) => topicOf(p, args[e.inputs.indexOf(p)]))];
        const types = c.dataTypes ? c.dataTypes.map((type) => ({ type })) : plain;
        const data = encodeAbiParameters(
          types,
          plain.map((p) => args[e.inputs.indexOf(p)]),
        );
        await chain.send('LogEmitter', emitter, 'emitLog', [topics, data]);
      }
    }
    to = await chain.blockNumber();
    nodeLogs = await chain.rpc<NodeLog[]>('eth_getLogs', [{ fromBlock: toHex(from), toBlock: toHex(to), address: emitter }]);
    expect(nodeLogs.length).toBe(CASES.reduce((n, c) => n + c.rows.length, 0));

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-abi-types-'));
    const file = path.join(dir, 'abi_types.json');
    fs.writeFileSync(file, JSON.stringify({ name: 'abi_types', abi: CASES.map((c) => c.signature), networks: { ETH: { addresses: [emitter], from_block: from } } }));
    const chdbDir = path.join(dir, 'chdb');
    const target = engine === 'chdb' ? ['--store', `chdb:${chdbDir}`] : [];
    const r = await runCli(['ingest', 'evm', '--network', 'ETH', '--rpc', anvil.url, '--from', '0', '--to', String(to), '--confirmations', '0', '--data', dir, ...target, '--custom', file]);
    expect(r.code, r.stderr).toBe(0);
    store = engine === 'chdb' ? await createClickHouseStore({ target: { engine: 'chdb', dir: chdbDir }, database: 'chainq' }) : await createStore({ dataDir: dir, threads: 2 });
    reader = engine === 'chdb' ? await createTestStore(null, 'duckdb') : store;
    app = await createApp({ store });
    ({ key } = await createKey(store, { plan: 'unlimited' }));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    if (reader !== store) await reader?.close();
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(EVENTS.map((e) => [e.name, e] as const))('%s: JSON holds every value as viem decodes the log, exact', async (_name, e) => {
    const r = await get(url(e, 'json'));
    expect(r.statusCode, r.body).toBe(200);
    const rows = (parseExactJson(r.body) as { events: Record<string, unknown>[] }).events;
    const want = expected(e);
    expect(rows.map((row) => Object.keys(row))).toEqual(want.map((w) => ['block_number', ...w.map(([k]) => k)]));
    expect(rows.map((row) => want[0]!.map(([k]) => [k, row[k]]))).toEqual(want);
  });

  it('filters by address inputs named like SQL keywords (from, to), in any case', async () => {
    const scalars = EVENTS.find((e) => e.name === 'Scalars')!;
    const r = await get(`${url(scalars, 'json')}&from=${MIXED_ADDRESS}&to=${ZERO_ADDRESS}`);
    expect(r.statusCode, r.body).toBe(200);
    const rows = (r.json() as { events: { from: string; to: string; text: string }[] }).events;
    expect(rows.map((x) => [x.from, x.to, x.text])).toEqual([[MIXED_ADDRESS.toLowerCase(), ZERO_ADDRESS, AWKWARD]]);
  });

  it.each(EVENTS.map((e) => [e.name, e] as const))('%s: CSV holds every value as text: integers in decimal, bool as true/false', async (_name, e) => {
    const r = await get(url(e, 'csv'));
    expect(r.statusCode, r.body).toBe(200);
    const rows = parseCsv(r.body, { columns: true }) as Record<string, string>[];
    const want = expected(e).map((w) => w.map(([k, v]): [string, string] => [k, String(v)]));
    expect(Object.keys(rows[0]!)).toEqual(['block_number', ...want[0]!.map(([k]) => k)]);
    expect(rows.map((row) => want[0]!.map(([k]) => [k, row[k]]))).toEqual(want);
  });

  it.each(EVENTS.map((e) => [e.name, e] as const))('%s: Parquet holds every value: integers up to 64 bits as integers, wider ones as decimal text', async (_name, e) => {
    const r = await get(url(e, 'parquet'));
    expect(r.statusCode, r.body).toBe(200);
    const content = await readParquet(reader, r.rawPayload);
    const want = expected(e);
    expect(content.columns.map((c) => c.name)).toEqual(['block_number', ...want[0]!.map(([k]) => k)]);
    const types = Object.fromEntries(content.columns.map((c) => [c.name, c.type]));
    for (const [name, v] of want[0]!) {
      const p = e.inputs.find((x, i) => (x.name || `arg${i}`) === name)!;
      const type = typeof v === 'bigint' ? (p.type === 'uint64' ? 'UBIGINT' : 'BIGINT') : typeof v === 'boolean' ? 'BOOLEAN' : 'VARCHAR';
      expect([name, types[name]]).toEqual([name, type]);
    }
    const got = content.rows.map((row) => want[0]!.map(([k, v]) => [k, typeof v === 'bigint' ? BigInt(row[k] as number | bigint) : row[k]]));
    expect(got).toEqual(want);
  });
});
