import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestVenueB } from '../../src/ingest/venues/ingestVenueB.ts';
import type { Store } from '../../src/store/types.ts';
import { recordingRetry, startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import * as fx from './fixtures/venueB.ts';
import { count, coverage, crashAfter, dump, memoryStore, SimulatedCrash, tempDir } from './helpers.ts';
import { engineSql } from '../helpers/engineSql.ts';

const H0 = Date.UTC(2025, 11, 1);
const HOURS = 3;
const D1 = Date.UTC(2025, 11, 1);
const NOW = Date.UTC(2025, 11, 4, 12); // the info API's "now": its 5000 candles reach back to 2025-12-01 04:41
const DAY = 86_400_000;

const market = new fx.VenueBMarket();
for (let h = 0; h < HOURS; h++) market.simulateHour(H0 + h * fx.HOUR, 100 + h);
const LZ4_HOUR = fx.hourLabel(H0 + fx.HOUR); // this hour is served compressed, as the public bucket stores it
const candleData = new Map([
  ['BTC', fx.candles('BTC', D1, 3 * 1440, 1)],
  ['kPEPE', fx.candles('kPEPE', D1, 3 * 1440, 2)],
]);
const fundingData = new Map([
  ['BTC', fx.fundingRows(D1, 72, 3)],
  ['kPEPE', fx.fundingRows(D1, 72, 4)],
]);

function serveFiles(server: SourceServer): void {
  for (const [rel, body] of fx.fillsFiles(market, LZ4_HOUR)) server.files.set(rel, body);
}

let server: SourceServer;
let store: Store;
beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  serveFiles(server);
  server.handlers.set('/info', fx.infoHandler({ candles: candleData, funding: fundingData, serverNow: NOW, pageCap: 20 }));
  store = await memoryStore();
});
afterEach(async () => store.close());

const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const fillsRun = (over: Partial<Parameters<typeof ingestVenueB>[0]> = {}, s: Store = store) =>
  ingestVenueB({
    store: s,
    tokens: ['BTC', 'kPEPE'],
    since: H0,
    until: H0 + HOURS * fx.HOUR,
    source: server.url,
    infoUrl: `${server.url}/info`,
    datasets: ['fills'],
    http: fast,
    now: NOW,
    ...over,
  });

const ingestedHours = new Set(Array.from({ length: HOURS }, (_, h) => fx.hourLabel(H0 + h * fx.HOUR)));
const expectedFills = (coin: string) => market.fills.filter((f) => f.coin === coin && ingestedHours.has(market.fileOf.get(f.blockNumber)!));

async function snapshot(s: Store) {
  const out: Record<string, unknown> = {};
  for (const t of ['venue_b_fills', 'venue_b_trades', 'venue_b_positions', 'venue_b_candles', 'venue_b_funding', 'coverage']) out[t] = await dump(s, t);
  return out;
}

describe('venue_b node fills', () => {
  it('stores every fill of the requested coins exactly, from plain and .lz4 hour files', async () => {
    const summary = await fillsRun();
    expect(summary).toMatchObject({ done: HOURS, failed: [], missing: [] });
    for (const [coin, token] of [
      ['BTC', 'BTC'],
      ['kPEPE', 'KPEPE'],
    ] as const) {
      const rows = await engineSql(store).all<Record<string, unknown>>(`SELECT * EXCLUDE (token) FROM venue_b_fills WHERE token = $token ORDER BY block_number, tid, crossed DESC`, { token });
      const want = expectedFills(coin).sort((a, b) => a.blockNumber - b.blockNumber || a.tid - b.tid || Number(b.crossed) - Number(a.crossed));
      expect(want.length).toBeGreaterThan(20);
      expect(
        rows.map((r) => [
          (r.time as Date).getTime(),
          r.wallet,
          r.price,
          r.size,
          r.side,
          r.dir,
          r.start_position,
          r.closed_pnl,
          r.fee,
          r.fee_token,
          r.crossed,
          Number(r.tid),
          Number(r.oid),
          r.hash,
          Number(r.block_number),
        ]),
      ).toEqual(want.map((f) => [f.time, f.wallet, f.px, f.sz, f.side, f.dir, f.startPosition, f.closedPnl, f.fee, 'USDC', f.crossed, f.tid, f.oid, f.hash, f.blockNumber]));
    }
    // Coins not asked for (ETH, the spot pair @107) are not stored.
    expect(await count(store, 'venue_b_fills', `token NOT IN ('BTC', 'KPEPE')`)).toBe(0);
    for (const ds of ['fills', 'raw_trades', 'positions']) expect(await coverage(store, `exchange/venue_b/${ds}`, 'KPEPE')).toEqual([[H0, H0 + HOURS * fx.HOUR - 1]]);
  });

  it('derives one trade per trade id from the taker side', async () => {
    await fillsRun();
    const rows = await engineSql(store).all<{ time: Date; tid: bigint; price: number; amount: number; buy: boolean; hash: string }>(
      `SELECT * EXCLUDE (token) FROM venue_b_trades WHERE token = 'BTC' ORDER BY time, tid`,
    );
    const want = expectedFills('BTC')
      .filter((f) => f.crossed)
      .sort((a, b) => a.time - b.time || a.tid - b.tid);
    expect(rows.map((r) => [r.time.getTime(), Number(r.tid), r.price, r.amount, r.buy, r.hash])).toEqual(want.map((f) => [f.time, f.tid, f.px, f.sz, f.side === 'B', f.hash]));
  });

  it('derives positions: sizes always match the venue, entries wherever they can be known, valued at the last trade', async () => {
    await fillsRun();
    const rows = await engineSql(store).all<{ time: Date; wallet: string; token: string; side: string; size: number; avg_entry: number | null; mark_price: number; unrealized_pnl: number | null }>(
      `SELECT * FROM venue_b_positions ORDER BY token, time, wallet`,
    );
    expect(rows.length).toBeGreaterThan(40);
    const truth = new Map<string, fx.Fill>();
    for (const f of market.fills) if (ingestedHours.has(market.fileOf.get(f.blockNumber)!)) truth.set(`${f.coin.toUpperCase()}|${f.wallet}|${f.time}`, f);
    let known = 0;
    for (const r of rows) {
      const f = truth.get(`${r.token}|${r.wallet}|${r.time.getTime()}`)!;
      expect(f).toBeDefined();
      expect(r.side === 'short' ? -r.size : r.size).toBeCloseTo(f.after.size, 9);
      expect(r.side).toBe(f.after.size > 0 ? 'long' : f.after.size < 0 ? 'short' : 'flat');
      if (r.avg_entry !== null) {
        known++;
        expect(Math.abs(r.avg_entry - f.after.entry!) / f.after.entry!).toBeLessThan(1e-6);
        expect(r.unrealized_pnl!).toBeCloseTo((r.mark_price - r.avg_entry) * (r.side === 'short' ? -r.size : r.size), 6);
      } else if (r.side !== 'flat') {
        expect(r.unrealized_pnl).toBeNull();
      }
      // The mark is the coin's last trade price at that time (the block's last fill).
      const lastInBlock = market.fills.filter((x) => x.coin.toUpperCase() === r.token && x.time === r.time.getTime()).at(-1)!;
      expect(r.mark_price).toBe(lastInBlock.px);
    }
    expect(known / rows.length).toBeGreaterThan(0.8);
    // Wallets that start flat have every entry known.
    const preOpened = new Set(market.wallets.slice(0, 5));
    expect(rows.filter((r) => !preOpened.has(r.wallet) && r.side !== 'flat').every((r) => r.avg_entry !== null)).toBe(true);
  });

  it("is idempotent, also for fills that a node wrote into the next hour's file", async () => {
    await fillsRun();
    const first = await snapshot(store);
    expect(await fillsRun()).toMatchObject({ done: 0, skipped: HOURS });
    expect(await fillsRun({ force: true })).toMatchObject({ done: HOURS });
    expect(await snapshot(store)).toEqual(first);
    const dupes = await engineSql(store).all(`SELECT tid, wallet FROM venue_b_fills GROUP BY ALL HAVING count(*) > 1`);
    expect(dupes).toEqual([]);
  });

  it('resumes after a crash between hours and ends identical to an uninterrupted run', async () => {
    const reference = await memoryStore();
    try {
      await fillsRun({}, reference);
      await expect(fillsRun({ hooks: crashAfter(1) })).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await coverage(store, 'exchange/venue_b/fills', 'BTC')).toEqual([[H0, H0 + fx.HOUR - 1]]);
      expect(await fillsRun()).toMatchObject({ done: HOURS - 1, skipped: 1 });
      expect(await snapshot(store)).toEqual(await snapshot(reference));
    } finally {
      await reference.close();
    }
  });

  it('retries a failing hour file with backoff and records missing hours without covering them', async () => {
    const rel = `/node_fills_by_block/hourly/${fx.hourLabel(H0)}`;
    server.fail(rel, { status: 500, times: 2 });
    server.files.delete(`/node_fills_by_block/hourly/${fx.hourLabel(H0 + 2 * fx.HOUR)}`);
    const { policy, waits } = recordingRetry(4, 10);
    const summary = await fillsRun({ http: { retry: policy } });
    expect(waits).toEqual([10, 20]);
    expect(summary.done).toBe(2);
    expect(summary.missing).toEqual([`node_fills_by_block/hourly/${fx.hourLabel(H0 + 2 * fx.HOUR)}`]);
    expect(await coverage(store, 'exchange/venue_b/fills', 'BTC')).toEqual([[H0, H0 + 2 * fx.HOUR - 1]]);
  });

  it('reads a node data directory', async () => {
    const dir = tempDir('venue_b');
    try {
      for (const [label, text] of market.files) {
        const file = path.join(dir, 'node_fills_by_block', 'hourly', ...label.split('/'));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, text);
      }
      await fillsRun({ source: dir });
      const viaHttp = await memoryStore();
      try {
        await fillsRun({}, viaHttp);
        expect(await snapshot(store)).toEqual(await snapshot(viaHttp));
      } finally {
        await viaHttp.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('venue_b info API', () => {
  const infoRun = (over: Partial<Parameters<typeof ingestVenueB>[0]> = {}) =>
    ingestVenueB({
      store,
      tokens: ['BTC', 'kPEPE'],
      since: D1,
      until: D1 + 3 * DAY,
      infoUrl: `${server.url}/info`,
      datasets: ['candles', 'funding'],
      http: fast,
      now: NOW,
      ...over,
    });

  it('stores 1-minute candles per day and covers only days the API still holds whole', async () => {
    const summary = await infoRun({ datasets: ['candles'] });
    // 5000 candles back from the API's now reach 2025-12-01 04:41: that day comes back cut.
    expect(summary.partial).toEqual([expect.stringContaining('candles BTC 2025-12-01'), expect.stringContaining('candles kPEPE 2025-12-01')]);
    expect(summary.done).toBe(4);
    const rows = await engineSql(store).all<{ time: Date; open: number; high: number; low: number; close: number; volume: number; trade_count: bigint }>(
      `SELECT * EXCLUDE (token) FROM venue_b_candles WHERE token = 'KPEPE' AND time >= '2025-12-02' ORDER BY time`,
    );
    const want = candleData.get('kPEPE')!.filter((c) => c.t >= D1 + DAY && c.t < D1 + 3 * DAY);
    expect(rows.map((r) => [r.time.getTime(), r.open, r.high, r.low, r.close, r.volume, Number(r.trade_count)])).toEqual(want.map((c) => [c.t, c.o, c.h, c.l, c.c, c.v, c.n]));
    expect(await coverage(store, 'exchange/venue_b/ohlcv', 'BTC')).toEqual([[D1 + DAY, D1 + 3 * DAY - 1]]);
  });

  it('follows fundingHistory pages and stores every entry', async () => {
    const summary = await infoRun({ datasets: ['funding'] });
    expect(summary).toMatchObject({ done: 6, failed: [] });
    const pages = server.requests.filter((r) => r.path === '/info' && (r.body as { type: string }).type === 'fundingHistory' && (r.body as { coin: string }).coin === 'BTC');
    expect(pages.length).toBe(5); // 72 entries at 20 per page, then an empty page
    const rows = await engineSql(store).all<{ time: Date; rate: number; premium: number }>(`SELECT time, rate, premium FROM venue_b_funding WHERE token = 'BTC' ORDER BY time`);
    expect(rows.map((r) => [r.time.getTime(), r.rate, r.premium])).toEqual(fundingData.get('BTC')!.map((f) => [f.time, f.rate, f.premium]));
    expect(await coverage(store, 'exchange/venue_b/funding', 'KPEPE')).toEqual([[D1, D1 + 3 * DAY - 1]]);
  });

  it('retries 429 from the info API, honouring Retry-After, and is idempotent', async () => {
    server.fail('/info', { status: 429, times: 2, retryAfter: '3' });
    const { policy, waits } = recordingRetry(4, 100);
    await infoRun({ http: { retry: policy } });
    expect(waits).toEqual([3000, 3000]);
    const first = await snapshot(store);
    const again = await infoRun();
    expect(again).toMatchObject({ done: 0, skipped: 10 }); // only the two partial candle days are asked again
    expect(again.partial).toHaveLength(2);
    expect(await snapshot(store)).toEqual(first);
  });

  it('resumes candles and funding after a crash', async () => {
    await expect(infoRun({ hooks: crashAfter(3) })).rejects.toBeInstanceOf(SimulatedCrash);
    await infoRun();
    const reference = await memoryStore();
    try {
      await ingestVenueB({ store: reference, tokens: ['BTC', 'kPEPE'], since: D1, until: D1 + 3 * DAY, infoUrl: `${server.url}/info`, datasets: ['candles', 'funding'], http: fast, now: NOW });
      expect(await snapshot(store)).toEqual(await snapshot(reference));
    } finally {
      await reference.close();
    }
  });
});
