import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unzipSync, zipSync } from 'fflate';
import fs from 'node:fs';
import path from 'node:path';
import { ingestVenueA } from '../../src/ingest/venues/ingestVenueA.ts';
import { archivePath } from '../../src/ingest/venues/venueAArchive.ts';
import type { Store } from '../../src/store/types.ts';
import { recordingRetry, startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import * as fx from './fixtures/venueA.ts';
import { count, coverage, crashAfter, dump, memoryStore, SimulatedCrash, tempDir } from './helpers.ts';
import { engineSql } from '../helpers/engineSql.ts';

const { D1, D2, DEC, JAN, TOKENS } = fx.ARCHIVE;
const NOW = Date.UTC(2026, 0, 10);

const archive = fx.buildArchive();
let server: SourceServer;
let store: Store;

beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  for (const [k, v] of archive.files) server.files.set(k, v);
  store = await memoryStore();
});
afterEach(async () => store.close());

const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const run = (over: Partial<Parameters<typeof ingestVenueA>[0]> = {}) => ingestVenueA({ store, archive: server.url, tokens: [...TOKENS], since: D1, until: D2 + fx.DAY, http: fast, now: NOW, ...over });

const iso = (ms: number) => new Date(ms).toISOString();
const tables = ['venue_a_trades', 'venue_a_klines', 'venue_a_book_depth', 'venue_a_metrics', 'venue_a_funding'];
async function snapshot(s: Store) {
  const out: Record<string, unknown> = {};
  for (const t of [...tables, 'coverage']) out[t] = await dump(s, t);
  return out;
}

describe('venue_a archive ingestion', () => {
  it('stores exactly the rows of every file, across header/headerless and ms/µs variants', async () => {
    const summary = await run();
    expect(summary.failed).toEqual([]);
    expect(summary.done).toBe(18);

    for (const token of TOKENS) {
      for (const day of [D1, D2]) {
        const key = `${token} ${fx.isoDay(day)}`;
        const trades = await engineSql(store).all<{ time: Date; id: bigint; price: number; amount: number; quote_amount: number; buy: boolean }>(
          `SELECT time, id, price, amount, quote_amount, buy FROM venue_a_trades WHERE token = $token AND time::DATE = $day::DATE ORDER BY time, id`,
          { token, day: fx.isoDay(day) },
        );
        const want = [...expected(key, 'trades')].sort((a, b) => a.time - b.time || a.id - b.id);
        expect(trades.map((r) => [iso(r.time.getTime()), Number(r.id), r.price, r.amount, r.quote_amount, r.buy])).toEqual(
          want.map((t) => [iso(t.time), t.id, t.price, t.qty, t.quoteQty, !t.buyerMaker]),
        );

        const kl = await engineSql(store).all<{
          time: Date;
          open: number;
          high: number;
          low: number;
          close: number;
          volume: number;
          quote_volume: number;
          trade_count: bigint;
          taker_buy_volume: number;
        }>(`SELECT * EXCLUDE (token) FROM venue_a_klines WHERE token = $token AND time::DATE = $day::DATE ORDER BY time`, { token, day: fx.isoDay(day) });
        expect(kl.map((r) => [r.time.getTime(), r.open, r.high, r.low, r.close, r.volume, r.quote_volume, Number(r.trade_count), r.taker_buy_volume])).toEqual(
          expected(key, 'klines').map((k) => [k.openTime, k.open, k.high, k.low, k.close, k.volume, k.quoteVolume, k.count, k.takerBuyVolume]),
        );

        const depth = await engineSql(store).all<{ time: Date; percentage: number; depth: number; value: number }>(
          `SELECT time, percentage, depth, value FROM venue_a_book_depth WHERE token = $token AND time::DATE = $day::DATE ORDER BY time, percentage`,
          { token, day: fx.isoDay(day) },
        );
        expect(depth.map((r) => [r.time.getTime(), r.percentage, r.depth, r.value])).toEqual(expected(key, 'depth').map((d) => [d.time, Math.round(d.percentage * 100), d.depth, d.notional]));

        const m = await engineSql(store).all<Record<string, number | Date>>(`SELECT * EXCLUDE (token) FROM venue_a_metrics WHERE token = $token AND time::DATE = $day::DATE ORDER BY time`, {
          token,
          day: fx.isoDay(day),
        });
        expect(
          m.map((r) => [(r.time as Date).getTime(), r.open_interest, r.open_interest_value, r.top_trader_count_ratio, r.top_trader_vol_ratio, r.long_short_count_ratio, r.taker_long_short_vol_ratio]),
        ).toEqual(expected(key, 'metrics').map((x) => [x.time, x.oi, x.oiValue, x.topCount, x.topSum, x.count, x.takerSum]));
      }
      const f = await engineSql(store).all<{ time: Date; rate: number; interval_hours: number }>(`SELECT time, rate, interval_hours FROM venue_a_funding WHERE token = $token ORDER BY time`, {
        token,
      });
      expect(f.map((r) => [r.time.getTime(), r.rate, r.interval_hours])).toEqual(archive.expected.funding.get(token)!.map((x) => [x.time, x.rate, x.interval]));
    }
    // Basis points of the 12 bands, whatever the file's spelling.
    const bands = await engineSql(store).all<{ p: number }>(`SELECT DISTINCT percentage AS p FROM venue_a_book_depth ORDER BY p`);
    expect(bands.map((b) => b.p)).toEqual([-500, -400, -300, -200, -100, -20, 20, 100, 200, 300, 400, 500]);
  });

  it('rebuilds the USD prices behind with_value from the ingested candles', async () => {
    await run();
    for (const token of TOKENS) {
      const [k] = await engineSql(store).all<{ time: Date; close: number }>(`SELECT time, close FROM venue_a_klines WHERE token = $token ORDER BY time LIMIT 1`, { token });
      const [p] = await engineSql(store).all<{ usd: number }>(`SELECT usd FROM prices WHERE token = $token AND minute = $minute`, {
        token,
        minute: k!.time.toISOString().replace('T', ' ').replace('Z', ''),
      });
      expect(p?.usd).toBe(k!.close);
    }
  });

  it('records coverage per endpoint dataset and token as whole UTC days (funding: the month)', async () => {
    await run();
    const twoDays: [number, number][] = [[D1, D2 + fx.DAY - 1]];
    for (const token of TOKENS) {
      for (const ds of ['raw_trades', 'ohlcv', 'book_depth', 'open_interest', 'long_short_ratios']) {
        expect(await coverage(store, `exchange/venue_a/${ds}`, token)).toEqual(twoDays);
      }
      expect(await coverage(store, 'exchange/venue_a/funding_rate', token)).toEqual([[DEC, JAN - 1]]);
    }
  });

  it('is idempotent: a second run skips every file, and --force rewrites without duplicates', async () => {
    await run();
    const first = await snapshot(store);
    const requests = server.requests.length;
    const again = await run();
    expect(again).toMatchObject({ done: 0, skipped: 18 });
    expect(server.requests.length).toBe(requests); // nothing downloaded
    const forced = await run({ force: true });
    expect(forced.done).toBe(18);
    expect(await snapshot(store)).toEqual(first);
  });

  it('resumes after a crash between checkpoints and ends identical to an uninterrupted run', async () => {
    const reference = await memoryStore();
    try {
      await ingestVenueA({ store: reference, archive: server.url, tokens: [...TOKENS], since: D1, until: D2 + fx.DAY, http: fast, now: NOW });
      await expect(run({ hooks: crashAfter(5), concurrency: 1 })).rejects.toBeInstanceOf(SimulatedCrash);
      const partialTrades = await count(store, 'venue_a_trades');
      expect(partialTrades).toBeGreaterThan(0);
      const resumed = await run();
      expect(resumed.skipped).toBe(5); // the committed files are not fetched again
      expect(resumed.done).toBe(13);
      expect(await snapshot(store)).toEqual(await snapshot(reference));
    } finally {
      await reference.close();
    }
  });

  it('retries HTTP 500 and 429 with exponential backoff, honouring Retry-After', async () => {
    const rel = `/${archivePath('trades', 'BTCUSDT', '2025-12-01')}`;
    server.fail(rel, { status: 500, times: 2 });
    server.fail(rel, { status: 429, times: 1, retryAfter: '2' });
    server.fail(`${rel}.CHECKSUM`, { status: 503, times: 1 });
    const { policy, waits } = recordingRetry(5, 100);
    const summary = await run({ http: { retry: policy }, kinds: ['trades'], tokens: ['BTC'], since: D1, until: D1 + fx.DAY });
    expect(summary).toMatchObject({ done: 1, failed: [] });
    expect(waits).toEqual([100, 200, 2000, 100]); // 100, 200, then Retry-After 2 s beats 400; the checksum's own first retry
    expect(server.requests.filter((r) => r.path === rel).map((r) => r.status)).toEqual([500, 500, 429, 200]);
    expect(await count(store, 'venue_a_trades')).toBe(400);
  });

  it('gives up after the retries and leaves the day uncovered', async () => {
    const rel = `/${archivePath('trades', 'BTCUSDT', '2025-12-01')}`;
    server.fail(rel, { status: 502, times: 10 });
    const summary = await run({ kinds: ['trades'], tokens: ['BTC'] });
    expect(summary.failed).toHaveLength(1);
    expect(summary.done).toBe(1);
    expect(await coverage(store, 'exchange/venue_a/raw_trades', 'BTC')).toEqual([[D2, D2 + fx.DAY - 1]]);
  });

  it('refuses a file whose checksum does not match, and skips missing files without covering them', async () => {
    const bad = `/${archivePath('metrics', 'ETHUSDT', '2025-12-02')}`;
    server.files.set(`${bad}.CHECKSUM`, Buffer.from(`${'0'.repeat(64)}  ETHUSDT-metrics-2025-12-02.zip\n`));
    server.files.delete(`/${archivePath('bookDepth', 'BTCUSDT', '2025-12-01')}`);
    const summary = await run({ kinds: ['metrics', 'bookDepth'] });
    expect(summary.failed).toEqual([expect.stringContaining('checksum mismatch')]);
    expect(summary.missing).toEqual([archivePath('bookDepth', 'BTCUSDT', '2025-12-01')]);
    expect(await count(store, 'venue_a_metrics', `token = 'ETH' AND time >= '2025-12-02'`)).toBe(0);
    expect(await coverage(store, 'exchange/venue_a/open_interest', 'ETH')).toEqual([[D1, D1 + fx.DAY - 1]]);
    expect(await coverage(store, 'exchange/venue_a/book_depth', 'BTC')).toEqual([[D2, D2 + fx.DAY - 1]]);
  });

  it('re-ingests a day whose archive file was replaced, with --refresh', async () => {
    expect(await run({ kinds: ['trades'], tokens: ['BTC'] })).toMatchObject({ done: 2, failed: [] });
    const rel = archivePath('trades', 'BTCUSDT', '2025-12-01');
    const replacement = fx.trades('BTC', D1, 250, 99);
    const { zip, checksum } = fx.zipWithChecksum('BTCUSDT-trades-2025-12-01.csv', fx.tradesCsv('BTC', replacement));
    server.files.set(`/${rel}`, zip);
    server.files.set(`/${rel}.CHECKSUM`, Buffer.from(checksum));
    const plain = await run({ kinds: ['trades'], tokens: ['BTC'] });
    expect(plain).toMatchObject({ skipped: 2, failed: [] });
    expect(await count(store, 'venue_a_trades', `time < '2025-12-02'`)).toBe(400);
    const refreshed = await run({ kinds: ['trades'], tokens: ['BTC'], refresh: true });
    expect(refreshed).toMatchObject({ done: 1, skipped: 1 });
    expect(await count(store, 'venue_a_trades', `time < '2025-12-02'`)).toBe(250);
    expect(await count(store, 'venue_a_trades')).toBe(650);
  });

  it('reads a local directory in the archive layout', async () => {
    const dir = tempDir('venue_a');
    try {
      for (const [rel, buf] of archive.files) {
        const file = path.join(dir, rel);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, buf);
      }
      const summary = await run({ archive: dir });
      expect(summary).toMatchObject({ done: 18, failed: [], missing: [] });
      const fromDir = await snapshot(store);
      const viaHttp = await memoryStore();
      try {
        await ingestVenueA({ store: viaHttp, archive: server.url, tokens: [...TOKENS], since: D1, until: D2 + fx.DAY, http: fast, now: NOW });
        expect(fromDir).toEqual(await snapshot(viaHttp));
      } finally {
        await viaHttp.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a zip whose bytes fail its CRC-32 (a local mirror without .CHECKSUM), leaves the day uncovered, and loads the sound file on the next run', async () => {
    const dir = tempDir('venue_a_crc');
    const rel = archivePath('trades', 'BTCUSDT', '2025-12-01');
    try {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Stored (not deflated), so that a damaged byte still unpacks: only the CRC tells.
      const [name, csv] = Object.entries(unzipSync(archive.files.get(`/${rel}`)!))[0]!;
      const stored = Buffer.from(zipSync({ [name]: csv }, { level: 0 }));
      const digit = stored.indexOf(Buffer.from(',1'), 40) + 1;
      stored[digit] = '7'.charCodeAt(0);
      fs.writeFileSync(file, stored);
      const summary = await run({ archive: dir, kinds: ['trades'], tokens: ['BTC'], until: D2 });
      expect(summary.failed).toEqual([expect.stringMatching(/BTCUSDT-trades-2025-12-01\.zip.*fails its CRC-32 check/)]);
      expect(await coverage(store, 'exchange/venue_a/raw_trades', 'BTC')).toEqual([]);
      expect(await count(store, 'venue_a_trades')).toBe(0);

      fs.writeFileSync(file, archive.files.get(`/${rel}`)!);
      expect(await run({ archive: dir, kinds: ['trades'], tokens: ['BTC'], until: D2 })).toMatchObject({ done: 1, failed: [] });
      expect(await coverage(store, 'exchange/venue_a/raw_trades', 'BTC')).toEqual([[D1, D1 + fx.DAY - 1]]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a .CHECKSUM that names another file, leaving the day uncovered until the right one is published', async () => {
    const rel = `/${archivePath('trades', 'BTCUSDT', '2025-12-01')}`;
    const right = archive.files.get(`${rel}.CHECKSUM`)!;
    server.files.set(`${rel}.CHECKSUM`, Buffer.from(right.toString().replace('BTCUSDT-trades-2025-12-01.zip', 'BTCUSDT-trades-2025-11-30.zip')));
    const summary = await run({ kinds: ['trades'], tokens: ['BTC'], until: D2 });
    expect(summary.failed).toEqual([expect.stringContaining('is the checksum of BTCUSDT-trades-2025-11-30.zip, not of BTCUSDT-trades-2025-12-01.zip')]);
    expect(await coverage(store, 'exchange/venue_a/raw_trades', 'BTC')).toEqual([]);
    server.files.set(`${rel}.CHECKSUM`, right);
    expect(await run({ kinds: ['trades'], tokens: ['BTC'], until: D2 })).toMatchObject({ done: 1, failed: [] });
    expect(await coverage(store, 'exchange/venue_a/raw_trades', 'BTC')).toEqual([[D1, D1 + fx.DAY - 1]]);
  });

  it('does not ask for periods that are not over yet', async () => {
    const summary = await run({ kinds: ['trades'], tokens: ['BTC'], now: D2 + 3_600_000 });
    expect(summary.done).toBe(1);
    expect(summary.missing).toEqual([expect.stringContaining('not over yet')]);
  });
});

function expected<K extends keyof fx.Expected>(key: string, kind: K): fx.Expected[K] extends Map<string, infer V> ? V : never {
  const v = archive.expected[kind].get(key);
  if (!v) throw new Error(`no fixture ${kind} ${key}`);
  return v as never;
}
