/**
 * Answers come in their documented order (docs/api.md, "Formats and
 * envelopes"), the same order on every identical request, in every format:
 * chain rows ascending by block, then position in the block; aggregate rows
 * by bucket, then token; venue rows by time. Every row of every answer is
 * checked (Parquet read back with DuckDB).
 *
 * DuckDB streams rows stored in order without sorting them, which holds only
 * while its plan keeps the scan's order. A plan that joins (an IN list of
 * several values becomes a hash join in DuckDB, a label set is a subquery)
 * lost it: the engine's threads each scan one row group (122,880 rows) and
 * their rows interleaved. The smallest setting that shows it is the one of
 * the ERC-20 store below: two engine threads (every test store has two) and a
 * network whose rows span two row groups, which the demo at twice its rate
 * gives ETH (150,000 transfers in half a day); the test demo's 75,000 ETH
 * transfers fit in one row group and came out in order by chance.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START, DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { parseCsv } from '../helpers/formats.ts';
import { createTestApp, TEST_DEMO, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

type Format = 'json' | 'csv' | 'parquet';
type Row = Record<string, unknown>;
/** A sort key: a column, compared as a number or as text. */
type Key = readonly [name: string, kind: 'number' | 'text'];

const REPEATS = 3;
const ETH0 = DEMO_START_BLOCKS.ETH!;
/** The last ETH block of half a day of demo data (12 s blocks). */
const ETH_END = ETH0 + 3_599;
const TRON0 = DEMO_START_BLOCKS.TRON!;
const EVM_ORDER: readonly Key[] = [
  ['block_number', 'number'],
  ['log_index', 'number'],
];

let erc20: TestApp;
let demo: TestApp;
beforeAll(async () => {
  erc20 = await createTestApp({ days: 0.5, scale: 2, only: ['evm/erc20'] });
  demo = await createTestApp(TEST_DEMO);
});
afterAll(async () => {
  await erc20?.close();
  await demo?.close();
});

/** The key columns of every row of a Parquet body, in the file's order, read back with DuckDB (the test app's oracle). */
async function parquetRows(t: TestApp, body: Buffer, keys: readonly Key[]): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-order-'));
  const file = path.join(dir, 'body.parquet');
  fs.writeFileSync(file, body);
  try {
    return await engineSql(t.oracle).all<Row>(`SELECT ${keys.map(([name]) => `"${name}"`).join(', ')} FROM read_parquet($file)`, { file });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function rowsOf(t: TestApp, url: string, format: Format, keys: readonly Key[] = []): Promise<{ rows: Row[]; body: Buffer }> {
  const res = await t.get(`${url}&format=${format}`);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  const body = res.rawPayload;
  if (format === 'json') return { rows: (JSON.parse(body.toString()) as { events: Row[] }).events, body };
  if (format === 'csv') return { rows: parseCsv(body.toString()).rows, body };
  return { rows: await parquetRows(t, body, keys), body };
}

function keyOf(row: Row, keys: readonly Key[]): (number | string)[] {
  return keys.map(([name, kind]) => {
    const v = row[name];
    if (v === undefined || v === null) throw new Error(`row without ${name}: ${JSON.stringify(row, (_, x) => (typeof x === 'bigint' ? String(x) : x))}`);
    return kind === 'number' ? Number(v) : String(v);
  });
}

function compare(a: readonly (number | string)[], b: readonly (number | string)[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}

/** The places where a row's key is below the previous row's (or equal to it, when keys are unique). */
function disorder(rows: readonly Row[], keys: readonly Key[], unique: boolean): string[] {
  const out: string[] = [];
  for (let i = 1; i < rows.length; i++) {
    const c = compare(keyOf(rows[i - 1]!, keys), keyOf(rows[i]!, keys));
    if (c > 0 || (unique && c === 0)) out.push(`row ${i}: ${keyOf(rows[i]!, keys).join('/')} after ${keyOf(rows[i - 1]!, keys).join('/')}`);
  }
  return out;
}

/**
 * Asks `url` REPEATS times in each format: every answer is in order, the
 * formats hold the same number of rows, and each format's answers are the
 * same bytes each time. Returns the row count.
 */
async function expectOrdered(t: TestApp, url: string, formats: readonly Format[], keys: readonly Key[], unique = true): Promise<number> {
  const counts = new Set<number>();
  for (const format of formats) {
    let first: Buffer | null = null;
    for (let i = 0; i < REPEATS; i++) {
      const { rows, body } = await rowsOf(t, url, format, keys);
      const wrong = disorder(rows, keys, unique);
      expect(wrong.slice(0, 5), `${format} answer ${i + 1} of ${url}: ${wrong.length} rows out of order`).toEqual([]);
      counts.add(rows.length);
      if (first === null) first = body;
      else expect(body.equals(first), `${format} answer ${i + 1} of ${url} differs from the first`).toBe(true);
    }
  }
  expect([...counts], `row counts of ${url} by format`).toHaveLength(1);
  return [...counts][0]!;
}

/** ERC-20 token symbols the registry holds on a network (its native coin left out). */
async function symbols(t: TestApp, network: string, native: string): Promise<string[]> {
  const res = await t.get('/v1/tokens');
  const tokens = res.json() as { symbol: string; networks: Record<string, unknown> }[];
  return tokens.filter((tk) => tk.networks[network] !== undefined && tk.symbol !== native).map((tk) => tk.symbol);
}

/**
 * The second half of the ETH blocks: 75,000 transfers, where ETH's rows cross
 * from DuckDB's first row group into the second (at the 122,880th row).
 */
const ETH_HALF = ETH0 + 1_800;
const ERC20 = `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH_HALF}&block_end=${ETH_END}`;

describe('ERC-20 rows, many at once', () => {
  it('every token of the registry: ascending by block and log index, the same each time, in JSON, CSV and Parquet', async () => {
    const tokens = await symbols(erc20, 'ETH', 'ETH');
    expect(tokens.length).toBeGreaterThanOrEqual(20);
    const n = await expectOrdered(erc20, `${ERC20}&verbose=true&token=${tokens.join(',')}`, ['json', 'csv', 'parquet'], EVM_ORDER);
    const [all] = await engineSql(erc20.oracle).all<{ n: bigint }>(`SELECT count(*) AS n FROM evm_erc20_transfer WHERE network = 'ETH' AND block_number BETWEEN $a AND $b`, {
      a: ETH_HALF,
      b: ETH_END,
    });
    expect(n).toBe(Number(all!.n));
    expect(n).toBeGreaterThan(70_000);
  });

  it('several senders, or several addresses on either side', async () => {
    const busiest = (side: 'sender' | 'receiver') =>
      engineSql(erc20.oracle).all<{ address: string }>(`SELECT ${side} AS address FROM evm_erc20_transfer WHERE network = 'ETH' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 8`);
    const senders = (await busiest('sender')).map((r) => r.address);
    const receivers = (await busiest('receiver')).map((r) => r.address);
    const bySender = await expectOrdered(erc20, `${ERC20}&verbose=true&token=USDT,USDC,WETH,WBTC,DAI&sender=${senders.join(',')}`, ['json', 'csv', 'parquet'], EVM_ORDER);
    const involving = await expectOrdered(erc20, `${ERC20}&verbose=true&token=USDT,USDC,WETH,WBTC,DAI&involving=${[...senders, ...receivers].join(',')}`, ['json', 'csv'], EVM_ORDER);
    expect(bySender).toBeGreaterThan(5_000);
    expect(involving).toBeGreaterThan(bySender);
  });

  it('filtered by label or category, with one token or several', async () => {
    const tokens = await symbols(erc20, 'ETH', 'ETH');
    const byCategory = await expectOrdered(erc20, `${ERC20}&verbose=true&token=${tokens.join(',')}&involving_category=exchange,defi,bridge`, ['json', 'csv', 'parquet'], EVM_ORDER);
    const byLabel = await expectOrdered(erc20, `${ERC20}&verbose=true&token=USDT&sender_label=a,e`, ['json', 'csv'], EVM_ORDER);
    expect(byCategory).toBeGreaterThan(5_000);
    expect(byLabel).toBeGreaterThan(100);
  });

  it('small answers built in one piece (100 blocks, JSON) keep the order too, across the row groups', async () => {
    // The 100 blocks around where ETH's rows cross from one row group into the next.
    const [edge] = await engineSql(erc20.oracle).all<{ block: bigint }>(
      `SELECT block_number AS block FROM evm_erc20_transfer WHERE network = 'ETH' ORDER BY block_number, log_index LIMIT 1 OFFSET 122880`,
    );
    const start = Number(edge!.block) - 50;
    const tokens = await symbols(erc20, 'ETH', 'ETH');
    const url = `/v1/evm/erc20/events/transfer?network=ETH&block_start=${start}&block_end=${start + 99}&verbose=true&token=${tokens.join(',')}`;
    const small = await expectOrdered(erc20, `${url}&involving_category=exchange,defi,bridge`, ['json'], EVM_ORDER);
    const several = await expectOrdered(erc20, `${url}&sender_label=a,e,i,o`, ['json'], EVM_ORDER);
    expect(small).toBeGreaterThan(50);
    expect(small).toBeLessThanOrEqual(2_000);
    expect(several).toBeGreaterThan(50);
  });
});

describe('aggregates', () => {
  it('ERC-20 buckets of many tokens: ascending by bucket, then token, by time and by block', async () => {
    const tokens = (await symbols(erc20, 'ETH', 'ETH')).join(',');
    const agg = `/v1/evm/erc20/events/transfer/aggregate?network=ETH&block_start=${ETH0}&block_end=${ETH_END}&token=${tokens}`;
    const byTime = await expectOrdered(
      erc20,
      `${agg}&group_by=time&period=5m`,
      ['json', 'csv', 'parquet'],
      [
        ['time_start', 'text'],
        ['token', 'text'],
      ],
    );
    const byBlock = await expectOrdered(
      erc20,
      `${agg}&group_by=block_number&period=7&involving_category=exchange,defi`,
      ['json', 'csv', 'parquet'],
      [
        ['block_start', 'number'],
        ['token', 'text'],
      ],
    );
    expect(byTime).toBeGreaterThan(100);
    expect(byBlock).toBeGreaterThan(100);
  });
});

describe('Tron rows, many tokens at once', () => {
  it('ascending by block, the same each time', async () => {
    const tokens = await symbols(demo, 'TRON', 'TRX');
    const url = `/v1/tron/trc20/events/transfer?block_start=${TRON0}&block_end=${TRON0 + 2_999}&verbose=true&token=${tokens.join(',')}&ignore_unknown_tokens=true`;
    expect(await expectOrdered(demo, url, ['json', 'csv', 'parquet'], [['block_number', 'number']], false)).toBeGreaterThan(1_000);
  });
});

describe('venue rows', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const range = `since=${iso(DEMO_START)}&until=${iso(DEMO_START + 4 * 3_600_000)}`;
  const TIME: readonly Key[] = [['time', 'text']];

  it('every venue endpoint: ascending by time, the same each time, in CSV and Parquet (and JSON candles)', async () => {
    const paths = [
      '/v1/exchange/venue_a/raw_trades',
      '/v1/exchange/venue_a/book_depth',
      '/v1/exchange/venue_a/open_interest',
      '/v1/exchange/venue_a/funding_rate',
      '/v1/exchange/venue_a/long_short_ratios',
      '/v1/exchange/venue_b/raw_trades',
      '/v1/exchange/venue_b/fills',
      '/v1/exchange/venue_b/positions',
      '/v1/exchange/venue_b/funding',
    ];
    for (const path of paths) expect(await expectOrdered(demo, `${path}?token=BTC&${range}`, ['csv', 'parquet'], TIME, false), path).toBeGreaterThan(0);
    for (const path of ['/v1/exchange/venue_a/ohlcv', '/v1/exchange/venue_b/ohlcv']) {
      expect(await expectOrdered(demo, `${path}?token=BTC&${range}&window=5m`, ['json', 'csv', 'parquet'], TIME), path).toBeGreaterThan(40);
    }
  });

  it('fills and positions of several wallets', async () => {
    const { rows } = await rowsOf(demo, `/v1/exchange/venue_b/fills?token=BTC&${range}`, 'csv');
    const wallets = [...new Set(rows.map((r) => String(r.wallet)))].slice(0, 8).join(',');
    expect(await expectOrdered(demo, `/v1/exchange/venue_b/fills?token=BTC&${range}&wallet=${wallets}`, ['csv', 'parquet'], TIME, false)).toBeGreaterThan(10);
    expect(await expectOrdered(demo, `/v1/exchange/venue_b/positions?token=BTC&${range}&wallet=${wallets}`, ['csv', 'parquet'], TIME, false)).toBeGreaterThan(10);
  });
});
