/**
 * Every EVM aggregate endpoint against an independent aggregation of the same
 * query's raw rows, fetched through the API: bucket edges, sums, means,
 * counts, pivot columns and USD values, in both groupings and several periods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshPrices } from '../../src/reference/prices.ts';
import { mirrorTables, engineSql } from '../helpers/engineSql.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { expectClose, groupRows, isoSeconds, mean, parseCsv, readParquet, sum, type Row } from '../helpers/aggregateOracle.ts';

let t: TestApp;

const DAY0 = Date.UTC(2025, 11, 1);
/** Demo candles: ETH and BTC every minute of the half-day window, except an ETH gap 05:00–05:30. */
const GAP = [300, 330] as const;
const ethUsd = (minute: number) => 3000 + 25 * Math.sin(minute / 40);
const btcUsd = (minute: number) => 90_000 + 300 * Math.cos(minute / 55);
const minuteOf = (iso: string) => Math.floor((Date.parse(iso) - DAY0) / 60_000);

/** The USD price of a chain symbol at the minute of `iso`, by the documented rule, or null. */
function usd(symbol: string, iso: string): number | null {
  const m = minuteOf(iso);
  if (['USDT', 'USDC', 'DAI'].includes(symbol)) return 1;
  if (['ETH', 'WETH', 'STETH'].includes(symbol)) return m >= GAP[0] && m < GAP[1] ? null : ethUsd(m);
  if (['BTC', 'WBTC'].includes(symbol)) return btcUsd(m);
  return null;
}

beforeAll(async () => {
  t = await createTestApp();
  // The test's own candles replace the demo's, so that its price oracle is exact
  // (written in the DuckDB oracle, then mirrored into the served store).
  await engineSql(t.oracle).run(`DELETE FROM venue_a_klines`);
  await engineSql(t.oracle).run(`INSERT INTO venue_a_klines
    SELECT 'ETH', TIMESTAMP '2025-12-01' + to_minutes(m), c, c, c, c, 1, c, 1, 0.5
    FROM (SELECT m, 3000 + 25 * sin(m / 40) AS c FROM range(720) r(m) WHERE m < ${GAP[0]} OR m >= ${GAP[1]})`);
  await engineSql(t.oracle).run(`INSERT INTO venue_a_klines
    SELECT 'BTC', TIMESTAMP '2025-12-01' + to_minutes(m), c, c, c, c, 1, c, 1, 0.5
    FROM (SELECT m, 90000 + 300 * cos(m / 55) AS c FROM range(720) r(m))`);
  await refreshPrices(t.oracle);
  await mirrorTables(t.store, t.oracle, ['venue_a_klines', 'prices']);
});
afterAll(async () => {
  await t?.close();
});

async function getJson(url: string): Promise<Row[]> {
  const res = await t.get(url);
  if (res.statusCode !== 200) throw new Error(`${url} → ${res.statusCode} ${res.body}`);
  const body = res.json() as { status: string; events: Row[]; count: number };
  expect(body.status).toBe('success');
  expect(body.count).toBe(body.events.length);
  return body.events;
}

type Agg = 'sum' | 'mean';
interface Case {
  readonly path: string;
  readonly qs: string;
  /** Aggregated columns in the order docs/aggregates.md ("Row shapes") lists them: output, aggregation, raw field. */
  readonly columns: readonly (readonly [string, Agg, string])[];
  readonly pivot?: 'swap' | 'liquidity';
  /** agg_value_usd with with_value=true (docs/aggregates.md, "On aggregates"). */
  readonly valued: boolean;
}

const ETH = 'network=ETH&block_start=23910000&block_end=23913599';
const BASE = 'network=BASE&block_start=38900000&block_end=38909999';
const POOL = 'symbol0=WETH&symbol1=USDC&fee=500';

const CASES: readonly Case[] = [
  { path: 'erc20/events/transfer', qs: `${ETH}&token=WETH`, columns: [['agg_amount', 'sum', 'amount']], valued: false },
  { path: 'native/events/transfer', qs: ETH, columns: [['agg_amount', 'sum', 'amount']], valued: false },
  ...['deposit', 'withdraw', 'repay', 'flashloan'].map((e) => ({ path: `lending_v3/events/${e}`, qs: ETH, columns: [['agg_amount', 'sum', 'amount']] as const, valued: true })),
  {
    path: 'lending_v3/events/borrow',
    qs: ETH,
    columns: [
      ['agg_amount', 'sum', 'amount'],
      ['mean_borrow_rate', 'mean', 'borrow_rate'],
    ],
    valued: true,
  },
  {
    path: 'lending_v3/events/liquidation',
    qs: ETH,
    columns: [
      ['agg_debt_to_cover', 'sum', 'debt_to_cover'],
      ['agg_liquidated_collateral_amount', 'sum', 'liquidated_collateral'],
    ],
    valued: true,
  },
  { path: 'staking/events/deposit', qs: ETH, columns: [['agg_minted_amount', 'sum', 'minted_amount']], valued: true },
  { path: 'staking/events/withdrawal_request', qs: ETH, columns: [['agg_burned_amount', 'sum', 'burned_amount']], valued: true },
  { path: 'staking/events/withdrawal_claimed', qs: ETH, columns: [['agg_withdraw_amount', 'sum', 'withdraw_amount']], valued: true },
  { path: 'staking/events/l2_deposit', qs: BASE, columns: [['agg_minted_amount', 'sum', 'amount']], valued: true },
  { path: 'staking/events/l2_withdrawal_request', qs: BASE, columns: [['agg_burned_amount', 'sum', 'amount']], valued: true },
  {
    path: 'dex_v3/events/swap',
    qs: `${ETH}&${POOL}`,
    pivot: 'swap',
    columns: [
      ['mean_sqrt_based_price', 'mean', 'sqrt_based_price'],
      ['mean_liquidity', 'mean', 'liquidity'],
    ],
    valued: true,
  },
  ...['deposit', 'withdraw', 'collect'].map((e) => ({ path: `dex_v3/events/${e}`, qs: `${ETH}&${POOL}`, columns: [], pivot: 'liquidity' as const, valued: true })),
];

const PERIODS = { time: ['1h', '7m', '1w'], block_number: ['1000', '777'] } as const;
const POOL_TOKENS = ['WETH', 'USDC'];

/** Swap means are kept in storage only: read them by event key, straight from the table. */
async function withStoredPoolState(rows: Row[]): Promise<Row[]> {
  const state = await engineSql(t.oracle).all<{ block_number: bigint; log_index: number; sqrt_based_price: number; liquidity: number }>(
    `SELECT block_number, log_index, sqrt_based_price, liquidity FROM evm_dex_v3_swap WHERE network = 'ETH' AND pool_address = $pool`,
    { pool: String(rows[0]?.pool_address) },
  );
  const byKey = new Map(state.map((s) => [`${s.block_number}:${s.log_index}`, s]));
  return rows.map((r) => {
    const s = byKey.get(`${r.block_number}:${r.log_index}`);
    if (!s) throw new Error(`no stored swap ${r.block_number}:${r.log_index}`);
    return { ...r, sqrt_based_price: s.sqrt_based_price, liquidity: s.liquidity };
  });
}

/** What the aggregate should answer, from raw rows. */
function expected(c: Case, raw: readonly Row[], groupBy: 'time' | 'block_number', period: string, withValue: boolean): Row[] {
  return groupRows(raw, groupBy, period).map(({ key, rows }) => {
    const out: Row = groupBy === 'time' ? { time_start: isoSeconds(key.startMs!), time_end: isoSeconds(key.endMs!) } : { block_start: key.startBlock, block_end: key.endBlock };
    const n = (r: Row, f: string) => Number(r[f]);
    for (const token of c.pivot ? POOL_TOKENS : []) {
      if (c.pivot === 'swap') {
        out[`agg_${token}_sold`] = sum(rows.filter((r) => r.tokenSold === token).map((r) => n(r, 'amountSold')));
        out[`agg_${token}_bought`] = sum(rows.filter((r) => r.tokenBought === token).map((r) => n(r, 'amountBought')));
      } else {
        out[`agg_${token}_amount`] = sum(rows.map((r) => (r.token0 === token ? n(r, 'amount0') : 0) + (r.token1 === token ? n(r, 'amount1') : 0)));
      }
    }
    for (const [name, agg, field] of c.columns) out[name] = (agg === 'sum' ? sum : mean)(rows.map((r) => n(r, field)));
    out.count = rows.length;
    if (withValue && c.valued) {
      const values = rows.map((r) => r.value_usd as number | null);
      out.agg_value_usd = values.some((v) => v === null) ? null : sum(values as number[]);
    }
    return out;
  });
}

function compare(actual: readonly Row[], wanted: readonly Row[], what: string): void {
  expect(actual.length, `${what}: buckets`).toBe(wanted.length);
  actual.forEach((row, i) => {
    const want = wanted[i]!;
    expect(Object.keys(row), `${what}: columns`).toEqual(Object.keys(want));
    for (const [k, v] of Object.entries(want)) {
      if (typeof v === 'number' && !['count', 'block_start', 'block_end'].includes(k)) expectClose(row[k], v, `${what} row ${i} ${k}`);
      else expect(row[k], `${what} row ${i} ${k}`).toEqual(v);
    }
  });
}

describe('EVM aggregates match an independent aggregation of the raw rows', () => {
  for (const c of CASES) {
    it(`${c.path}: both groupings, several periods, with and without values`, async () => {
      let raw = await getJson(`/v1/evm/${c.path}?${c.qs}&verbose=true&with_value=true`);
      expect(raw.length, 'the demo has rows for this case').toBeGreaterThan(0);
      if (c.pivot === 'swap') raw = await withStoredPoolState(raw);
      for (const groupBy of ['time', 'block_number'] as const) {
        for (const period of PERIODS[groupBy]) {
          const url = `/v1/evm/${c.path}/aggregate?${c.qs}&group_by=${groupBy}&period=${period}`;
          compare(await getJson(`${url}&with_value=true`), expected(c, raw, groupBy, period, true), `${url}&with_value=true`);
          compare(await getJson(url), expected(c, raw, groupBy, period, false), url);
        }
      }
    });
  }
});

describe('with_value', () => {
  it('adds value_usd to raw rows: amount × the price at the event minute, null when unknown', async () => {
    const rows = await getJson(`/v1/evm/erc20/events/transfer?${ETH.replace('23913599', '23912000')}&token=WETH&with_value=true`);
    expect(Object.keys(rows[0]!).at(-1)).toBe('value_usd');
    let nulls = 0;
    for (const r of rows) {
      const p = usd('WETH', String(r.time));
      if (p === null) nulls++;
      expectClose(r.value_usd, p === null ? null : Number(r.amount) * p, `value_usd at ${r.time}`);
    }
    expect(nulls, 'rows in the candle gap are null, not 0').toBeGreaterThan(0);
  });

  it('values a swap by what was sold, or by what was bought when the sold token has no price', async () => {
    const rows = await getJson(`/v1/evm/dex_v3/events/swap?${ETH}&${POOL}&with_value=true`);
    let fellBack = 0;
    for (const r of rows) {
      const sold = usd(String(r.tokenSold), String(r.time));
      const bought = usd(String(r.tokenBought), String(r.time));
      const want = sold !== null ? Number(r.amountSold) * sold : bought !== null ? Number(r.amountBought) * bought : null;
      if (sold === null) fellBack++;
      expectClose(r.value_usd, want, `swap at ${r.time}`);
    }
    expect(fellBack).toBeGreaterThan(0);
  });

  it('values a liquidity event by both tokens, and leaves a bucket null when one event in it has no price', async () => {
    const rows = await getJson(`/v1/evm/dex_v3/events/deposit?${ETH}&${POOL}&with_value=true`);
    for (const r of rows) {
      const p0 = usd(String(r.token0), String(r.time));
      const p1 = usd(String(r.token1), String(r.time));
      const want = p0 === null || p1 === null ? null : Number(r.amount0) * p0 + Number(r.amount1) * p1;
      expectClose(r.value_usd, want, `deposit at ${r.time}`);
    }
    const buckets = await getJson(`/v1/evm/dex_v3/events/deposit/aggregate?${ETH}&${POOL}&group_by=time&period=30m&with_value=true`);
    const gap = buckets.find((b) => b.time_start === '2025-12-01T05:00:00Z');
    expect(gap?.agg_value_usd).toBeNull();
    expect(buckets.filter((b) => typeof b.agg_value_usd === 'number').length).toBe(buckets.length - 1);
  });

  it('is off by default, and adds nothing to event types without agg_value_usd', async () => {
    const raw = await getJson(`/v1/evm/lending_v3/events/deposit?${ETH}`);
    expect(Object.keys(raw[0]!)).not.toContain('value_usd');
    const agg = await getJson(`/v1/evm/lending_v3/events/deposit/aggregate?${ETH}&group_by=time&period=1h`);
    expect(Object.keys(agg[0]!)).toEqual(['time_start', 'time_end', 'agg_amount', 'count']);
    const off = await getJson(`/v1/evm/lending_v3/events/deposit/aggregate?${ETH}&group_by=time&period=1h&with_value=false`);
    expect(off).toEqual(agg);
    const erc20 = await getJson(`/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=USDC&group_by=time&period=1h&with_value=true`);
    expect(Object.keys(erc20[0]!)).toEqual(['time_start', 'time_end', 'agg_amount', 'count']);
  });
});

describe('dex_v3 pivot columns', () => {
  it('are named after the pool tokens, in the order the request names them', async () => {
    const url = (pair: string) => `/v1/evm/dex_v3/events/swap/aggregate?${ETH}&${pair}&fee=500&group_by=time&period=1h&with_value=true`;
    const a = await getJson(url('symbol0=WETH&symbol1=USDC'));
    expect(Object.keys(a[0]!)).toEqual([
      'time_start',
      'time_end',
      'agg_WETH_sold',
      'agg_WETH_bought',
      'agg_USDC_sold',
      'agg_USDC_bought',
      'mean_sqrt_based_price',
      'mean_liquidity',
      'count',
      'agg_value_usd',
    ]);
    const b = await getJson(url('symbol0=usdc&symbol1=eth'));
    expect(Object.keys(b[0]!).slice(2, 6)).toEqual(['agg_USDC_sold', 'agg_USDC_bought', 'agg_WETH_sold', 'agg_WETH_bought']);
    expect(b[0]!.agg_WETH_sold).toBe(a[0]!.agg_WETH_sold);
  });

  it('for deposits give one amount column per pool token', async () => {
    const rows = await getJson(`/v1/evm/dex_v3/events/collect/aggregate?${ETH}&${POOL}&group_by=block_number&period=10000`);
    expect(Object.keys(rows[0]!)).toEqual(['block_start', 'block_end', 'agg_WETH_amount', 'agg_USDC_amount', 'count']);
  });
});

describe('formats', () => {
  const url = `/v1/evm/lending_v3/events/borrow/aggregate?${ETH}&group_by=time&period=2h&with_value=true`;

  it('CSV carries the same rows as JSON under a header of the same columns', async () => {
    const json = await getJson(url);
    const res = await t.get(`${url}&format=csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const csv = parseCsv(res.body);
    expect(Object.keys(csv[0]!)).toEqual(Object.keys(json[0]!));
    csv.forEach((r, i) => {
      expect(r.time_start).toBe(json[i]!.time_start);
      expect(Number(r.count)).toBe(json[i]!.count);
      expectClose(Number(r.agg_amount), json[i]!.agg_amount as number, 'agg_amount');
      expectClose(Number(r.mean_borrow_rate), json[i]!.mean_borrow_rate as number, 'mean_borrow_rate');
      expectClose(r.agg_value_usd === null ? null : Number(r.agg_value_usd), json[i]!.agg_value_usd as number | null, 'agg_value_usd');
    });
  });

  it('Parquet carries the same rows with typed columns', async () => {
    const json = await getJson(url);
    const res = await t.get(`${url}&format=parquet`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(res.headers['content-disposition']).toMatch(/attachment; filename=".*aggregate.*\.parquet"/);
    const pq = await readParquet(t.oracle, res.rawPayload);
    expect(pq.types).toEqual({
      time_start: 'VARCHAR',
      time_end: 'VARCHAR',
      agg_amount: 'DOUBLE',
      mean_borrow_rate: 'DOUBLE',
      count: 'BIGINT',
      agg_value_usd: 'DOUBLE',
    });
    expect(pq.rows.map((r) => ({ ...r, count: Number(r.count) }))).toEqual(json);
  });

  it('block buckets come out as integers in Parquet', async () => {
    const res = await t.get(`/v1/evm/native/events/transfer/aggregate?${ETH}&group_by=block_number&period=500&format=parquet`);
    const pq = await readParquet(t.oracle, res.rawPayload);
    expect(pq.types).toMatchObject({ block_start: 'BIGINT', block_end: 'BIGINT', count: 'BIGINT' });
    expect(Number(pq.rows[0]!.block_start)).toBe(23_910_000);
    expect(Number(pq.rows[0]!.block_end)).toBe(23_910_499);
  });
});

describe('buckets', () => {
  it('leave out empty buckets and may be partial at the edges of the range', async () => {
    // Liquidations are rare: a 1-minute grouping leaves most minutes empty.
    const rows = await getJson(`/v1/evm/lending_v3/events/liquidation/aggregate?${ETH}&group_by=time&period=1m`);
    expect(rows.every((r) => (r.count as number) > 0)).toBe(true);
    expect(rows.length).toBeLessThan(720);
    const partial = await getJson('/v1/evm/native/events/transfer/aggregate?network=ETH&block_start=23910250&block_end=23910749&group_by=block_number&period=1000');
    expect(partial.map((r) => [r.block_start, r.block_end])).toEqual([[23_910_000, 23_910_999]]);
  });

  it('accept a time range as well as a block range', async () => {
    const qs = 'network=ETH&since=2025-12-01T01:30:00Z&until=2025-12-01T04:00:00Z';
    const raw = await getJson(`/v1/evm/staking/events/deposit?${qs}`);
    const agg = await getJson(`/v1/evm/staking/events/deposit/aggregate?${qs}&group_by=time&period=1h`);
    expect(agg.map((r) => r.time_start)).toEqual(['2025-12-01T01:00:00Z', '2025-12-01T02:00:00Z', '2025-12-01T03:00:00Z']);
    expect(sum(agg.map((r) => r.count as number))).toBe(raw.length);
  });
});
