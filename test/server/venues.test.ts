/** Every venue_a and venue_b endpoint over the demo dataset: columns, formats, ranges, candles and errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { venueEndpoints } from '../../src/catalog/index.ts';
import { DEMO_START } from '../../src/demo/generate.ts';
import { planVenue, WINDOW_SECONDS } from '../../src/query/planVenue.ts';
import { WINDOWS } from '../../src/catalog/venues/common.ts';
import { parseCsv, readParquet, type Csv } from '../helpers/formats.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const H = 3_600_000;
const SINCE = iso(DEMO_START);
const UNTIL = iso(DEMO_START + 12 * H);
const range = (a: number, b: number) => `since=${iso(DEMO_START + a)}&until=${iso(DEMO_START + b)}`;

const COLUMNS: Record<string, string[]> = {
  '/v1/exchange/venue_a/raw_trades': ['time', 'price', 'amount', 'buy', 'id'],
  '/v1/exchange/venue_a/ohlcv': ['time', 'open', 'high', 'low', 'close', 'volume', 'trade_count'],
  '/v1/exchange/venue_a/book_depth': ['time', 'token', 'percentage', 'depth', 'value', 'exchange'],
  '/v1/exchange/venue_a/open_interest': ['time', 'token', 'open_interest', 'open_interest_value', 'exchange'],
  '/v1/exchange/venue_a/funding_rate': ['time', 'token', 'rate'],
  '/v1/exchange/venue_a/long_short_ratios': ['time', 'token', 'top_trader_count_ratio', 'top_trader_vol_ratio', 'long_short_count_ratio', 'taker_long_short_vol_ratio', 'exchange'],
  '/v1/exchange/venue_b/raw_trades': ['time', 'price', 'amount', 'buy'],
  '/v1/exchange/venue_b/ohlcv': ['time', 'open', 'high', 'low', 'close', 'volume', 'trade_count'],
  '/v1/exchange/venue_b/fills': ['time', 'token', 'wallet', 'price', 'size', 'side', 'dir', 'start_position', 'closed_pnl', 'fee', 'fee_token', 'crossed', 'tid', 'oid', 'hash', 'block_number'],
  '/v1/exchange/venue_b/positions': ['time', 'wallet', 'token', 'side', 'size', 'avg_entry', 'mark_price', 'unrealized_pnl'],
  '/v1/exchange/venue_b/funding': ['time', 'token', 'rate'],
};
const PATHS = Object.keys(COLUMNS);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const csv = async (url: string): Promise<Csv> => {
  const r = await t.get(url);
  expect(r.statusCode, r.body).toBe(200);
  expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
  return parseCsv(r.body);
};
const error = async (url: string) => {
  const r = await t.get(url);
  return { ...(JSON.parse(r.body) as Record<string, unknown>), http: r.statusCode };
};

describe('venue endpoints', () => {
  it('serves every venue path of the specification, and no other', async () => {
    expect(
      dataRoutes()
        .filter((r) => r.endpoint.family === 'exchange')
        .map((r) => r.path)
        .sort(),
    ).toEqual([...PATHS].sort());
    expect(await error(`/v1/exchange/venue_c/raw_trades?token=BTC&${range(0, H)}`)).toMatchObject({ http: 404, code: 'not_found' });
    expect(await error(`/v1/exchange/venue_b/book_depth?token=BTC&${range(0, H)}`)).toMatchObject({ http: 404, code: 'not_found' });
    const post = await t.app.inject({ method: 'POST', url: '/v1/exchange/venue_a/ohlcv', headers: { 'x-api-key': t.key } });
    expect(post.statusCode).toBe(405);
  });

  it.each(PATHS)('%s answers CSV by default with its columns, rows ascending by time', async (path) => {
    // 07:30 to 08:30 holds an 8-hourly funding time and an hourly snapshot.
    const body = await csv(`${path}?token=btc&${range(7.5 * H, 8.5 * H)}`);
    expect(body.header).toEqual(COLUMNS[path]);
    expect(body.rows.length).toBeGreaterThan(0);
    const times = body.rows.map((r) => r.time!);
    expect(times).toEqual([...times].sort());
    for (const time of times) {
      // A candle is labelled with the start of its window, which may precede since (07:00 for the 1h default).
      const from = DEMO_START + (path.endsWith('/ohlcv') ? 7 : 7.5) * H;
      expect(Date.parse(time) >= from && Date.parse(time) < DEMO_START + 8.5 * H).toBe(true);
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    }
  });

  it.each(PATHS)('%s answers typed Parquet with the same rows', async (path) => {
    const url = `${path}?token=eth&${range(4 * H, 5 * H)}`;
    const rows = (await csv(url)).rows;
    const r = await t.get(`${url}&format=parquet`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename=".+\.parquet"$/);
    const p = await readParquet(t.oracle, r.rawPayload);
    const endpoint = venueEndpoints.find((e) => e.path === path)!;
    const expected = { integer: /INT/, double: /^DOUBLE$/, boolean: /^BOOLEAN$/, string: /^VARCHAR$/ } as const;
    expect(p.columns.map((c) => c.name)).toEqual(COLUMNS[path]);
    for (const c of p.columns) expect(c.type).toMatch(expected[endpoint.columns.find((x) => x.name === c.name)!.type]);
    expect(p.rows.length).toBe(rows.length);
    expect(p.rows.map((x) => x.time)).toEqual(rows.map((x) => x.time));
  });

  it('answers JSON for ohlcv only, in the data envelope', async () => {
    for (const venue of ['venue_a', 'venue_b']) {
      const r = await t.get(`/v1/exchange/${venue}/ohlcv?token=SOL&${range(0, 6 * H)}&format=JSON`);
      expect(r.statusCode).toBe(200);
      const body = JSON.parse(r.body) as { status: string; events: Record<string, unknown>[]; count: number };
      expect(body.status).toBe('success');
      expect(body.count).toBe(6);
      expect(Object.keys(body.events[0]!)).toEqual(COLUMNS['/v1/exchange/venue_a/ohlcv']);
      expect(typeof body.events[0]!.trade_count).toBe('number');
    }
    for (const path of PATHS.filter((p) => !p.endsWith('/ohlcv'))) {
      expect(await error(`${path}?token=BTC&${range(0, H)}&format=json`)).toMatchObject({ http: 400, code: 'invalid_parameter', supported: ['csv', 'parquet'] });
    }
    expect(await error(`/v1/exchange/venue_a/ohlcv?token=BTC&${range(0, H)}&format=xml`)).toMatchObject({ http: 400, code: 'invalid_parameter' });
  });

  it('leaves the id column out of venue_a trades with skip_id=true', async () => {
    const body = await csv(`/v1/exchange/venue_a/raw_trades?token=BTC&${range(0, H)}&skip_id=true`);
    expect(body.header).toEqual(['time', 'price', 'amount', 'buy']);
    const ids = (await csv(`/v1/exchange/venue_a/raw_trades?token=BTC&${range(0, H)}`)).rows.map((r) => Number(r.id));
    expect(ids.length).toBe(body.rows.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const r of body.rows) expect(['true', 'false']).toContain(r.buy);
  });

  it('takes since and until as ISO 8601 with an offset, Unix seconds or a bare date, and symbols in any case', async () => {
    const a = await csv(`/v1/exchange/venue_a/funding_rate?token=btc&since=2025-12-01&until=2025-12-01T12:00:00Z`);
    const b = await csv(`/v1/exchange/venue_a/funding_rate?token=BTC&since=${DEMO_START / 1000}&until=2025-12-01T13:00:00%2B01:00`);
    expect(a.rows).toEqual(b.rows);
    expect(a.rows.map((r) => r.time)).toEqual(['2025-12-01T00:00:00.000Z', '2025-12-01T08:00:00.000Z']);
    expect(a.rows[0]!.token).toBe('BTC');
  });
});

describe('candles', () => {
  interface Trade {
    ms: number;
    price: number;
    amount: number;
  }
  const candles = (trades: Trade[], seconds: number) => {
    const out = new Map<number, { open: number; high: number; low: number; close: number; volume: number; trade_count: number }>();
    for (const tr of trades) {
      const w = Math.floor(tr.ms / (seconds * 1000)) * seconds * 1000;
      const c = out.get(w);
      if (!c) out.set(w, { open: tr.price, high: tr.price, low: tr.price, close: tr.price, volume: tr.amount, trade_count: 1 });
      else Object.assign(c, { high: Math.max(c.high, tr.price), low: Math.min(c.low, tr.price), close: tr.price, volume: c.volume + tr.amount, trade_count: c.trade_count + 1 });
    }
    return [...out].map(([w, c]) => ({ time: iso(w), ...c }));
  };

  it.each([
    ['venue_a', 'BTC', 0, 12 * H],
    ['venue_a', 'SOL', 30 * 60_000 + 17_000, 11 * H],
    ['venue_b', 'ETH', 0, 12 * H],
    ['venue_b', 'BTC', 5 * 60_000, 10 * H + 7 * 60_000],
  ] as const)('%s %s candles agree with the trades in every window (from +%i ms)', async (venue, token, from, to) => {
    const trades = (await csv(`/v1/exchange/${venue}/raw_trades?token=${token}&${range(from, to)}`)).rows.map((r) => ({ ms: Date.parse(r.time!), price: Number(r.price), amount: Number(r.amount) }));
    expect(trades.length).toBeGreaterThan(1000);
    for (const window of WINDOWS) {
      const got = (await csv(`/v1/exchange/${venue}/ohlcv?token=${token}&${range(from, to)}&window=${window}`)).rows;
      const want = candles(trades, WINDOW_SECONDS[window]!);
      expect(
        got.map((c) => c.time),
        window,
      ).toEqual(want.map((c) => c.time.replace('.000Z', 'Z')));
      got.forEach((c, i) => {
        const w = want[i]!;
        expect([Number(c.open), Number(c.high), Number(c.low), Number(c.close), Number(c.trade_count)], `${window} ${c.time}`).toEqual([w.open, w.high, w.low, w.close, w.trade_count]);
        expect(Number(c.volume)).toBeCloseTo(w.volume, 6);
      });
    }
  });

  it('defaults to 1h windows aligned to the epoch, and refuses other widths', async () => {
    const rows = (await csv(`/v1/exchange/venue_a/ohlcv?token=ETH&${range(90 * 60_000, 5 * H)}`)).rows;
    expect(rows.map((r) => r.time)).toEqual(['2025-12-01T01:00:00Z', '2025-12-01T02:00:00Z', '2025-12-01T03:00:00Z', '2025-12-01T04:00:00Z']);
    expect(await error(`/v1/exchange/venue_a/ohlcv?token=ETH&${range(0, H)}&window=2h`)).toMatchObject({ http: 400, code: 'invalid_parameter', supported: [...WINDOWS] });
    expect((await t.get(`/v1/exchange/venue_a/ohlcv?token=ETH&${range(0, H)}&window=1H`)).statusCode).toBe(200);
  });
});

describe('venue_a metrics', () => {
  it('has 12 book-depth levels per snapshot, about 30 s apart, deeper further from mid', async () => {
    const rows = (await csv(`/v1/exchange/venue_a/book_depth?token=BTC&${range(H, 2 * H)}`)).rows;
    const snapshots = new Map<string, Record<string, string>[]>();
    for (const r of rows) snapshots.set(r.time!, [...(snapshots.get(r.time!) ?? []), r]);
    expect(snapshots.size).toBeGreaterThanOrEqual(118);
    expect(snapshots.size).toBeLessThanOrEqual(121);
    for (const levels of snapshots.values()) {
      expect(levels.map((l) => Number(l.percentage))).toEqual([-500, -400, -300, -200, -100, -20, 20, 100, 200, 300, 400, 500]);
      const depth = levels.map((l) => Number(l.depth));
      // Bids from -500 to -20 shrink towards mid; asks grow away from it.
      for (let i = 0; i < 5; i++) expect(depth[i]!).toBeGreaterThan(depth[i + 1]!);
      for (let i = 6; i < 11; i++) expect(depth[i + 1]!).toBeGreaterThan(depth[i]!);
      for (const l of levels) {
        expect(l.exchange).toBe('1');
        expect(Number(l.value)).toBeGreaterThan(Number(l.depth) * 80_000);
      }
    }
  });

  it('has open interest and ratios every 5 minutes, and funding every 8 hours', async () => {
    const oi = (await csv(`/v1/exchange/venue_a/open_interest?token=SOL&${range(0, H)}`)).rows;
    expect(oi.map((r) => r.time!.slice(11, 16))).toEqual(['00:00', '00:05', '00:10', '00:15', '00:20', '00:25', '00:30', '00:35', '00:40', '00:45', '00:50', '00:55']);
    const ratios = (await csv(`/v1/exchange/venue_a/long_short_ratios?token=SOL&${range(0, H)}`)).rows;
    expect(ratios.length).toBe(12);
    for (const r of ratios) expect(Number(r.long_short_count_ratio)).toBeGreaterThan(0);
    const funding = (await csv(`/v1/exchange/venue_a/funding_rate?token=ETH&${range(0, 12 * H)}`)).rows;
    expect(funding.map((r) => r.time)).toEqual(['2025-12-01T00:00:00.000Z', '2025-12-01T08:00:00.000Z']);
  });
});

describe('venue_b fills and positions', () => {
  it('has both sides of every trade, with directions that follow the start position', async () => {
    const fills = (await csv(`/v1/exchange/venue_b/fills?token=SOL&${range(0, 3 * H)}`)).rows;
    const trades = (await csv(`/v1/exchange/venue_b/raw_trades?token=SOL&${range(0, 3 * H)}`)).rows;
    expect(fills.length).toBe(2 * trades.length);
    const byTid = new Map<string, Record<string, string>[]>();
    for (const f of fills) byTid.set(f.tid!, [...(byTid.get(f.tid!) ?? []), f]);
    for (const [, pair] of byTid) {
      expect(pair.length).toBe(2);
      const [a, b] = pair as [Record<string, string>, Record<string, string>];
      expect(new Set([a.side, b.side])).toEqual(new Set(['A', 'B']));
      expect(new Set([a.crossed, b.crossed])).toEqual(new Set(['true', 'false']));
      expect([a.price, a.size, a.hash]).toEqual([b.price, b.size, b.hash]);
      expect(a.wallet).not.toBe(b.wallet);
    }
    for (const f of fills) {
      const start = Number(f.start_position);
      const signed = f.side === 'B' ? Number(f.size) : -Number(f.size);
      const after = start + signed;
      const dir = f.side === 'B' ? (start >= 0 ? 'Open Long' : after <= 1e-9 ? 'Close Short' : 'Short > Long') : start <= 0 ? 'Open Short' : after >= -1e-9 ? 'Close Long' : 'Long > Short';
      expect(f.dir).toBe(dir);
      if (f.dir!.startsWith('Open')) expect(Number(f.closed_pnl)).toBe(0);
      expect(f.fee_token).toBe('USDC');
    }
  });

  it('filters fills and positions by wallet, and refuses a malformed wallet', async () => {
    const all = (await csv(`/v1/exchange/venue_b/fills?token=BTC&${range(0, 2 * H)}`)).rows;
    const wallet = all[0]!.wallet!;
    const mine = (await csv(`/v1/exchange/venue_b/fills?token=BTC&${range(0, 2 * H)}&wallet=${wallet.toUpperCase().replace('0X', '0x')}`)).rows;
    expect(mine).toEqual(all.filter((f) => f.wallet === wallet));
    // The last fill of the wallet before a snapshot leaves the position that the snapshot shows.
    const positions = (await csv(`/v1/exchange/venue_b/positions?token=BTC&${range(0, 2 * H)}&wallet=${wallet}`)).rows;
    expect(positions.length).toBeGreaterThan(0);
    for (const p of positions) {
      expect(p.wallet).toBe(wallet);
      const before = mine.filter((f) => f.time! < p.time!).at(-1)!;
      const pos = Number(before.start_position) + (before.side === 'B' ? 1 : -1) * Number(before.size);
      expect(Number(p.size)).toBeCloseTo(Math.abs(pos), 8);
      expect(p.side).toBe(pos > 0 ? 'long' : pos < 0 ? 'short' : 'flat');
      expect(Number(p.unrealized_pnl)).toBeCloseTo((Number(p.mark_price) - Number(p.avg_entry)) * pos, 4);
    }
    expect(await error(`/v1/exchange/venue_b/fills?token=BTC&${range(0, H)}&wallet=alice`)).toMatchObject({ http: 400, code: 'invalid_parameter', parameter: 'wallet' });
    expect(await error(`/v1/exchange/venue_a/raw_trades?token=BTC&${range(0, H)}&wallet=${wallet}`)).toMatchObject({ http: 400, code: 'unknown_parameter' });
  });

  it('has hourly funding', async () => {
    const rows = (await csv(`/v1/exchange/venue_b/funding?token=ETH&${range(0, 6 * H)}`)).rows;
    expect(rows.map((r) => r.time!.slice(11, 13))).toEqual(['00', '01', '02', '03', '04', '05']);
  });
});

describe('venue ranges and errors', () => {
  const trades = '/v1/exchange/venue_a/raw_trades';
  it('requires since and until, as times, in order', async () => {
    expect(await error(`${trades}?token=BTC&since=${SINCE}`)).toMatchObject({ http: 400, code: 'missing_parameter', parameter: 'until' });
    expect(await error(`${trades}?token=BTC&until=${UNTIL}`)).toMatchObject({ http: 400, code: 'missing_parameter', parameter: 'since' });
    expect(await error(`${trades}?since=${SINCE}&until=${UNTIL}`)).toMatchObject({ http: 400, code: 'missing_parameter', parameter: 'token' });
    expect(await error(`${trades}?token=BTC&since=yesterday&until=${UNTIL}`)).toMatchObject({ http: 400, code: 'invalid_parameter', parameter: 'since' });
    expect(await error(`${trades}?token=BTC&since=${UNTIL}&until=${SINCE}`)).toMatchObject({ http: 400, code: 'invalid_range' });
    expect(await error(`${trades}?token=BTC&since=${SINCE}&until=${SINCE}`)).toMatchObject({ http: 400, code: 'invalid_range' });
    expect(await error(`${trades}?token=BTC-PERP&since=${SINCE}&until=${UNTIL}`)).toMatchObject({ http: 400, code: 'invalid_parameter', parameter: 'token' });
    expect(await error(`${trades}?token=BTC&since=${SINCE}&until=${UNTIL}&block_start=1`)).toMatchObject({ http: 400, code: 'unknown_parameter' });
  });

  it('limits each endpoint to its maximum range, counting until - since', async () => {
    const start = DEMO_START / 1000;
    for (const e of venueEndpoints) {
      const max = e.maxDays * 86_400;
      const over = await error(`${e.path}?token=BTC&since=${start}&until=${start + max + 1}`);
      expect(over, e.path).toMatchObject({ http: 400, code: 'range_too_large', limit: max, requested: max + 1 });
      // Exactly the maximum passes the limit; the demo then lacks most of it.
      expect(await error(`${e.path}?token=BTC&since=${start}&until=${start + max}`), e.path).toMatchObject({ http: 400, code: 'invalid_range' });
    }
  });

  it('refuses time that was never ingested, and tokens the venue does not hold', async () => {
    const gap = await error(`${trades}?token=BTC&since=2025-11-30T23:00:00Z&until=2025-12-01T01:00:00Z`);
    expect(gap).toMatchObject({ http: 400, code: 'invalid_range', missing_time: [['2025-11-30T23:00:00Z', '2025-12-01T00:00:00Z']] });
    const late = await error(`/v1/exchange/venue_b/positions?token=SOL&since=2025-12-01T11:00:00Z&until=2025-12-01T13:00:00Z`);
    expect(late).toMatchObject({ http: 400, code: 'invalid_range', missing_time: [['2025-12-01T12:00:00Z', '2025-12-01T13:00:00Z']] });
    expect(await error(`${trades}?token=DOGE&since=${SINCE}&until=${UNTIL}`)).toMatchObject({ http: 400, code: 'unknown_token', supported: ['BTC', 'ETH', 'SOL'] });
  });

  it('refuses a venue_b spot pair as not supported, and a malformed symbol as such, without a charge', async () => {
    for (const [token, message] of [
      ['@107', "token='@107' is a spot pair; spot markets are not supported, only perpetual coins such as BTC or kPEPE"],
      ['PURR/USDC', "token='PURR/USDC' is a spot pair; spot markets are not supported, only perpetual coins such as BTC or kPEPE"],
      ['BTC-PERP', "token='BTC-PERP' is not a token symbol: letters and digits, such as BTC"],
    ]) {
      const r = await t.get(`/v1/exchange/venue_b/fills?token=${encodeURIComponent(token!)}&since=${SINCE}&until=${UNTIL}`);
      expect(r.statusCode).toBe(400);
      expect(r.headers['x-request-cost']).toBe('0');
      expect(JSON.parse(r.body)).toEqual({ status: 'error', error: message, code: 'invalid_parameter', parameter: 'token' });
    }
  });

  it('prices venue queries per day queried; venue_b with its minimum of 100', async () => {
    const route = (path: string) => dataRoutes().find((r) => r.path === path)!;
    const cost = async (path: string, since: string, until: string) => (await planVenue({ store: t.store }, route(path), { token: 'BTC', since, until, format: 'csv' })).cost;
    const a = await cost('/v1/exchange/venue_a/raw_trades', SINCE, UNTIL);
    expect(a.cost).toBe(1000);
    expect(a.breakdown).toMatchObject({ range_type: 'day', days: 1, cost_per_day: 1000 });
    expect((await cost('/v1/exchange/venue_a/funding_rate', SINCE, UNTIL)).cost).toBe(10);
    expect((await cost('/v1/exchange/venue_b/funding', SINCE, UNTIL)).cost).toBe(100);
    expect((await cost('/v1/exchange/venue_b/fills', SINCE, UNTIL)).cost).toBe(1000);
  });
});
