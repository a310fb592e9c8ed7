/** Filters narrow rows exactly as documented, checked against the rows of the unfiltered query. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Transfer {
  block_number: number;
  token: string;
  sender: string;
  receiver: string;
  amount: number;
  time: string;
}

const ETH0 = DEMO_START_BLOCKS.ETH!;
const range = `block_start=${ETH0}&block_end=${ETH0 + 600}`;
const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7';

async function rows<T = Transfer>(url: string): Promise<T[]> {
  const res = await t.get(url);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { events: T[] }).events;
}
const transfers = (q: string) => rows(`/v1/evm/erc20/events/transfer?network=ETH&${range}&${q}`);

let all: Transfer[];
let labelled: Map<string, { label: string; category: string }>;
beforeAll(async () => {
  all = await transfers('token=USDT');
  expect(all.length).toBeGreaterThan(500);
  const l = await engineSql(t.oracle).all<{ address: string; label: string; category: string }>(`SELECT address, label, category FROM labels WHERE network IS NULL`);
  labelled = new Map(l.map((r) => [r.address, r]));
});

describe('token', () => {
  it('finds a token by symbol in any case, by alias, and by contract address', async () => {
    expect(await transfers('token=usdt')).toEqual(all);
    expect(await transfers(`token=${USDT.toUpperCase().replace('0X', '0x')}`)).toEqual(all);
    const [alias] = await engineSql(t.oracle).all<{ a: string }>(`SELECT aliases[1] AS a FROM tokens WHERE symbol = 'USDT' AND network = 'ETH' AND len(aliases) > 0`);
    if (alias) expect(await transfers(`token=${encodeURIComponent(alias.a.toLowerCase())}`)).toEqual(all);
  });

  it('rescales amounts with decimals given for a contract address', async () => {
    const scaled = await transfers(`token=${USDT}&decimals=8`);
    expect(scaled.map((r) => r.amount)).toEqual(all.map((r) => expect.closeTo(r.amount / 100, 9)));
  });
});

describe('amounts', () => {
  it('keeps min_amount ≤ amount ≤ max_amount, inclusive, and treats max_amount=0 as no limit', async () => {
    const sorted = all.map((r) => r.amount).sort((a, b) => a - b);
    const lo = sorted[Math.floor(sorted.length / 4)]!;
    const hi = sorted[Math.floor((sorted.length * 3) / 4)]!;
    expect(await transfers(`token=USDT&min_amount=${lo}&max_amount=${hi}`)).toEqual(all.filter((r) => r.amount >= lo && r.amount <= hi));
    expect(await transfers(`token=USDT&min_amount=${lo}&max_amount=0`)).toEqual(all.filter((r) => r.amount >= lo));
  });
});

describe('addresses, labels and categories', () => {
  it('filters by sender, receiver and involving, with comma-separated lists meaning any', async () => {
    const a = all[0]!.sender;
    const b = all[1]!.receiver;
    expect(await transfers(`token=USDT&sender=${a}`)).toEqual(all.filter((r) => r.sender === a));
    expect(await transfers(`token=USDT&receiver=${b.toUpperCase().replace('0X', '0x')}`)).toEqual(all.filter((r) => r.receiver === b));
    expect(await transfers(`token=USDT&involving=${a},${b}`)).toEqual(all.filter((r) => [a, b].includes(r.sender) || [a, b].includes(r.receiver)));
  });

  it('matches labels by case-insensitive substring and categories exactly, on either side', async () => {
    const isLabelled = (addr: string, sub: string) => labelled.get(addr)?.label.toLowerCase().includes(sub) ?? false;
    const inCategory = (addr: string, c: string) => labelled.get(addr)?.category === c;
    const binance = all.filter((r) => isLabelled(r.sender, 'binance') || isLabelled(r.receiver, 'binance'));
    expect(binance.length).toBeGreaterThan(0);
    expect(await transfers('token=USDT&involving_label=BiNaNcE')).toEqual(binance);
    expect(await transfers('token=USDT&sender_label=binance,coinbase')).toEqual(all.filter((r) => isLabelled(r.sender, 'binance') || isLabelled(r.sender, 'coinbase')));
    expect(await transfers('token=USDT&receiver_category=EXCHANGE')).toEqual(all.filter((r) => inCategory(r.receiver, 'exchange')));
    expect(await transfers('token=USDT&involving_category=exchange')).toEqual(all.filter((r) => inCategory(r.sender, 'exchange') || inCategory(r.receiver, 'exchange')));
  });
});

describe('time ranges', () => {
  it('answers a time range with the rows of the blocks whose time falls in [since, until)', async () => {
    const since = all[10]!.time;
    const until = all[200]!.time;
    const got = await rows(`/v1/evm/erc20/events/transfer?network=ETH&token=USDT&since=${since}&until=${until}`);
    expect(got).toEqual(all.filter((r) => r.time >= since && r.time < until));
  });
});

describe('lending markets and pools', () => {
  it('serves the Core market on ETH by default and the others on request', async () => {
    const q = (m?: string) => `/v1/evm/lending_v3/events/deposit?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 3000}&verbose=true${m ? `&eth_market_type=${m}` : ''}`;
    const stored = await engineSql(t.oracle).all<{ market: string; n: bigint }>(
      `SELECT market, count(*) AS n FROM evm_lending_v3_deposit WHERE network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 3000} GROUP BY market`,
    );
    const count = (m: string) => Number(stored.find((s) => s.market === m)?.n ?? 0);
    expect((await rows(q())).length).toBe(count('Core'));
    expect((await rows(q('prime'))).length).toBe(count('Prime'));
    expect((await rows(q('EtherFi'))).length).toBe(count('EtherFi'));
  });

  it('finds a pool from its symbols in either order', async () => {
    const q = (a: string, b: string) => `/v1/evm/dex_v3/events/swap?network=ETH&symbol0=${a}&symbol1=${b}&fee=3000&${range}`;
    const one = await rows<{ pool_address: string }>(q('WETH', 'USDC'));
    expect(one.length).toBeGreaterThan(0);
    expect(await rows(q('usdc', 'weth'))).toEqual(one);
    expect(new Set(one.map((r) => r.pool_address))).toEqual(new Set(['0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8']));
  });
});
