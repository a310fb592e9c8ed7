/**
 * The venue adapters writing into ClickHouse (chDB in process) from the
 * fixture archive and node files: the API on chDB answers what the API on
 * DuckDB answers, endpoint by endpoint, and the prices rebuilt from candles
 * are the same; a re-ingest leaves no duplicates; and a failure between the
 * steps of a publish never lets a reader see a range half-written, and a
 * resume ends where an uninterrupted run ends (docs/storage.md, "Writes
 * without transactions").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestVenueA } from '../../src/ingest/venues/ingestVenueA.ts';
import { ingestVenueB } from '../../src/ingest/venues/ingestVenueB.ts';
import { archivePath } from '../../src/ingest/venues/venueAArchive.ts';
import type { IngestHooks } from '../../src/ingest/progress.ts';
import { createKey } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import type { PublishStep } from '../../src/store/clickhouse/publish.ts';
import type { Store } from '../../src/store/types.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { comparable, rowCount, venueAUrls, venueBUrls } from '../helpers/venueAnswers.ts';
import * as fa from './fixtures/venueA.ts';
import * as fb from './fixtures/venueB.ts';
import { memoryStore, SimulatedCrash } from './helpers.ts';
import { engineSql } from '../helpers/engineSql.ts';

const DAY = 86_400_000;
const { D1, DEC, JAN, TOKENS } = fa.ARCHIVE;
const A_NOW = Date.UTC(2026, 0, 10);
const A_URLS = venueAUrls(TOKENS, D1, 2, { lo: DEC, hi: JAN });

const H0 = Date.UTC(2025, 11, 1);
const HOURS = 3;
const B_NOW = Date.UTC(2025, 11, 4, 12);
const market = new fb.VenueBMarket();
for (let h = 0; h < HOURS; h++) market.simulateHour(H0 + h * fb.HOUR, 100 + h);
// ETH's fills include a block the node wrote into the next hour's file (fixtures/venueB.ts): the third
// hour's file reaches back into the second hour.
const FILL_COINS = ['BTC', 'kPEPE', 'ETH'];
const B_URLS = venueBUrls(
  { tokens: FILL_COINS.map((c) => c.toUpperCase()), h0: H0, hours: HOURS },
  { tokens: ['BTC', 'KPEPE'], candleDays: { lo: H0 + DAY, hi: H0 + 3 * DAY }, fundingDays: { lo: H0, hi: H0 + 3 * DAY } },
);

const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-venues-'));
let server: SourceServer;
let databases = 0;

beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  for (const [k, v] of fa.buildArchive().files) server.files.set(k, v);
  for (const [k, v] of fb.fillsFiles(market, fb.hourLabel(H0 + fb.HOUR))) server.files.set(k, v);
  server.handlers.set(
    '/info',
    fb.infoHandler({
      candles: new Map([
        ['BTC', fb.candles('BTC', H0, 3 * 1440, 1)],
        ['kPEPE', fb.candles('kPEPE', H0, 3 * 1440, 2)],
      ]),
      funding: new Map([
        ['BTC', fb.fundingRows(H0, 72, 3)],
        ['kPEPE', fb.fundingRows(H0, 72, 4)],
      ]),
      serverNow: B_NOW,
      pageCap: 20,
    }),
  );
});

async function chdbStore(): Promise<ClickHouseStore> {
  const store = await createClickHouseStore({ target: { engine: 'chdb', dir }, database: `venues_${++databases}` });
  await loadSeed(store);
  return store;
}

const runA = (store: Store, over: Partial<Parameters<typeof ingestVenueA>[0]> = {}) =>
  ingestVenueA({ store, archive: server.url, tokens: [...TOKENS], since: D1, until: D1 + 2 * DAY, http: fast, now: A_NOW, ...over });
const runFills = (store: Store, over: Partial<Parameters<typeof ingestVenueB>[0]> = {}) =>
  ingestVenueB({
    store,
    tokens: FILL_COINS,
    since: H0,
    until: H0 + HOURS * fb.HOUR,
    source: server.url,
    infoUrl: `${server.url}/info`,
    datasets: ['fills'],
    http: fast,
    now: B_NOW,
    ...over,
  });
const runInfo = (store: Store, over: Partial<Parameters<typeof ingestVenueB>[0]> = {}) =>
  ingestVenueB({
    store,
    tokens: ['BTC', 'kPEPE'],
    since: H0,
    until: H0 + 3 * DAY,
    infoUrl: `${server.url}/info`,
    datasets: ['candles', 'funding'],
    http: fast,
    now: B_NOW,
    ...over,
  });

interface Reader {
  /** The status and comparable body of a GET. */
  get(url: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** The API over `store`, with an unlimited key. */
async function reader(store: Store): Promise<Reader> {
  const app: FastifyInstance = await createApp({ store });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return {
    async get(url) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      return { status: res.statusCode, body: res.statusCode === 200 ? comparable(String(res.headers['content-type']), res.body) : res.json() };
    },
    close: () => app.close(),
  };
}

/** Every URL's answer, each required to be a 200. */
async function answers(store: Store, urls: readonly string[]): Promise<Record<string, unknown>> {
  const r = await reader(store);
  try {
    const out: Record<string, unknown> = {};
    for (const url of urls) {
      const { status, body } = await r.get(url);
      expect(status, `${url}: ${JSON.stringify(body)}`).toBe(200);
      out[url] = body;
    }
    return out;
  } finally {
    await r.close();
  }
}

/** Every URL's status and body, whatever they are. */
async function states(store: Store, urls: readonly string[]): Promise<Record<string, { status: number; body: unknown }>> {
  const r = await reader(store);
  try {
    const out: Record<string, { status: number; body: unknown }> = {};
    for (const url of urls) out[url] = await r.get(url);
    return out;
  } finally {
    await r.close();
  }
}

type Answers = Record<string, unknown>;
const served = (s: Record<string, { status: number; body: unknown }>): Answers =>
  Object.fromEntries(
    Object.entries(s)
      .filter(([, v]) => v.status === 200)
      .map(([k, v]) => [k, v.body]),
  );

/**
 * What a reader may see while a publish is cut off: for every URL, what was
 * served before the batch or what is served after it, or the refusal of a
 * range not covered; never some of the rows. Returns the URLs refused.
 */
async function expectNoHalfRanges(r: Reader, urls: readonly string[], before: Answers, after: Answers): Promise<string[]> {
  const refused: string[] = [];
  for (const url of urls) {
    const { status, body } = await r.get(url);
    if (status === 200) {
      const seen = [before[url], after[url]].filter((a) => a !== undefined);
      expect(seen.length, `${url} answered, though covered neither before nor after the batch`).toBeGreaterThan(0);
      expect(
        seen.some((a) => JSON.stringify(a) === JSON.stringify(body)),
        `${url}: rows neither before nor after the batch`,
      ).toBe(true);
    } else {
      expect(status, url).toBe(400);
      expect((body as { code: string }).code, url).toMatch(/^(invalid_range|unknown_token)$/);
      refused.push(url);
    }
  }
  return refused;
}

/** Hooks that fail the `nth` publish right after `step`, once; `atCrash` runs first (with the store as it is then). */
function failAt(nth: number, step: PublishStep, atCrash: () => Promise<void>): IngestHooks & { crashed(): boolean } {
  let publishes = 0;
  let crashed = false;
  return {
    async duringPublish(s) {
      if (s === 'uncovered') publishes++;
      if (crashed || publishes !== nth || s !== step) return;
      crashed = true;
      await atCrash();
      throw new SimulatedCrash(publishes);
    },
    crashed: () => crashed,
  };
}

/** Rows stored twice: same token and key in a table (a re-ingest must replace, never add). */
async function duplicates(ch: ClickHouseStore): Promise<Record<string, number>> {
  const keys: Record<string, string> = {
    venue_a_trades: 'token, id',
    venue_a_klines: 'token, time',
    venue_a_book_depth: 'token, time, percentage',
    venue_a_metrics: 'token, time',
    venue_a_funding: 'token, time',
    venue_b_fills: 'token, tid, wallet',
    venue_b_trades: 'token, tid',
    venue_b_positions: 'token, wallet, time',
    venue_b_candles: 'token, time',
    venue_b_funding: 'token, time',
  };
  const out: Record<string, number> = {};
  for (const [table, key] of Object.entries(keys)) {
    const [r] = await ch.query<{ n: number }>(`SELECT count() AS n FROM (SELECT ${key} FROM ${ch.table(table)} GROUP BY ${key} HAVING count() > 1)`);
    out[table] = Number(r?.n ?? 0);
  }
  return out;
}

const none = (d: Record<string, number>) => Object.fromEntries(Object.keys(d).map((k) => [k, 0]));

/** The prices table as rows: token, minute (ms or null), usd. */
async function prices(store: Store): Promise<[string, number | null, number][]> {
  const rows =
    store.engine === 'clickhouse'
      ? (
          await (store as ClickHouseStore).query<{ token: string; minute: string | null; usd: number }>(
            `SELECT token, minute, usd FROM ${(store as ClickHouseStore).table('prices')} ORDER BY token, minute`,
          )
        ).map((r) => [r.token, r.minute === null ? null : Date.parse(`${r.minute.replace(' ', 'T')}Z`), r.usd] as [string, number | null, number])
      : (await engineSql(store).all<{ token: string; minute: Date | null; usd: number }>(`SELECT token, minute, usd FROM prices ORDER BY token, minute NULLS FIRST`)).map(
          (r) => [r.token, r.minute === null ? null : r.minute.getTime(), r.usd] as [string, number | null, number],
        );
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : (a[1] ?? -1) - (b[1] ?? -1)));
}

let reference: Record<string, unknown>;
const FILL_URLS = B_URLS.filter((u) => !u.includes('/ohlcv') && !u.includes('/funding'));
let partial: Promise<{ twoHours: Answers; threeHours: Answers }> | null = null;

/** What DuckDB serves with the first two hours of fills ingested, then the three (computed once). */
function partialFills(): Promise<{ twoHours: Answers; threeHours: Answers }> {
  partial ??= (async () => {
    const duck = await memoryStore();
    try {
      await runFills(duck, { until: H0 + 2 * fb.HOUR });
      const twoHours = served(await states(duck, FILL_URLS));
      await runFills(duck);
      return { twoHours, threeHours: served(await states(duck, FILL_URLS)) };
    } finally {
      await duck.close();
    }
  })();
  return partial;
}
let referencePrices: [string, number | null, number][];

describe('venue ingestion into ClickHouse (chDB)', () => {
  it('serves what ingestion into DuckDB serves, endpoint by endpoint, with the same prices', async () => {
    const [duck, ch] = [await memoryStore(), await chdbStore()];
    try {
      for (const store of [duck, ch]) {
        expect(await runA(store)).toMatchObject({ done: 18, failed: [], missing: [] });
        expect(await runFills(store)).toMatchObject({ done: HOURS, failed: [], missing: [] });
        expect((await runInfo(store)).done).toBe(10);
      }
      reference = await answers(duck, [...A_URLS, ...B_URLS]);
      for (const url of [...A_URLS, ...B_URLS]) expect(rowCount(reference[url]), url).toBeGreaterThan(0);
      expect(await answers(ch, [...A_URLS, ...B_URLS])).toEqual(reference);
      referencePrices = await prices(duck);
      expect(referencePrices.length).toBeGreaterThan(2 * 2 * 1440);
      expect(await prices(ch)).toEqual(referencePrices);
    } finally {
      await duck.close();
      await ch.close();
    }
  });

  it('re-ingests covered ranges (--force, --refresh of a replaced file) without duplicates', async () => {
    const ch = await chdbStore();
    const duck = await memoryStore();
    try {
      await runA(ch);
      await runFills(ch);
      await runInfo(ch);
      expect(await runA(ch, { force: true })).toMatchObject({ done: 18, failed: [] });
      expect(await runFills(ch, { force: true })).toMatchObject({ done: HOURS });
      expect((await runInfo(ch, { force: true })).done).toBe(10);
      expect(await duplicates(ch)).toEqual(none(await duplicates(ch)));
      expect(await answers(ch, [...A_URLS, ...B_URLS])).toEqual(reference);
      expect(await prices(ch)).toEqual(referencePrices);

      // A file replaced in the archive is noticed from the checksum recorded in ClickHouse, and its day replaced.
      await runA(duck, { kinds: ['trades'] });
      const rel = archivePath('trades', 'BTCUSDT', '2025-12-01');
      const { zip, checksum } = fa.zipWithChecksum('BTCUSDT-trades-2025-12-01.csv', fa.tradesCsv('BTC', fa.trades('BTC', D1, 250, 99)));
      server.files.set(`/${rel}`, zip);
      server.files.set(`/${rel}.CHECKSUM`, Buffer.from(checksum));
      for (const store of [duck, ch]) expect(await runA(store, { kinds: ['trades'], refresh: true })).toMatchObject({ done: 1, skipped: 3 });
      const trades = A_URLS.filter((u) => u.includes('/raw_trades'));
      const replaced = await answers(ch, trades);
      expect(replaced).toEqual(await answers(duck, trades));
      expect(replaced).not.toEqual(Object.fromEntries(trades.map((u) => [u, reference[u]])));
      expect(await duplicates(ch)).toEqual(none(await duplicates(ch)));
    } finally {
      await duck.close();
      await ch.close();
    }
  });

  describe.each(['uncovered', 'deleted', 'inserted'] as const)('a failure after the publish step "%s"', (step) => {
    it('venue_b fills: readers see hours as before or after the batch, or a refusal; the resume ends as an uninterrupted run', async () => {
      const urls = FILL_URLS;
      const { twoHours, threeHours } = await partialFills();
      for (const forced of [false, true]) {
        const ch = await chdbStore();
        const r = await reader(ch);
        try {
          // The third hour's file holds a block of the second hour: its publish reaches back into that hour.
          if (forced) await runFills(ch);
          let refused: string[] = [];
          const [before, after] = forced ? [reference, reference] : [twoHours, threeHours];
          const hooks = failAt(3, step, async () => {
            refused = await expectNoHalfRanges(r, urls, before, after);
          });
          await expect(runFills(ch, { hooks, force: forced })).rejects.toBeInstanceOf(SimulatedCrash);
          expect(hooks.crashed()).toBe(true);
          // The hour being replaced is withdrawn, and so is the hour that its span reaches into.
          const hour = (h: number) => `/v1/exchange/venue_b/fills?token=ETH&since=${new Date(H0 + h * fb.HOUR).toISOString().replace('.000Z', 'Z')}`;
          if (forced) {
            expect(refused.filter((u) => u.startsWith(hour(2)))).toHaveLength(1);
            expect(refused.filter((u) => u.startsWith(hour(1)))).toHaveLength(1);
            expect(refused.filter((u) => u.startsWith(hour(0)) && u.endsWith('T01:00:00Z'))).toEqual([]);
          }
          await runFills(ch);
          const resumed = await answers(ch, urls);
          for (const url of urls) expect(resumed[url], url).toEqual(reference[url]);
          expect(await duplicates(ch)).toEqual(none(await duplicates(ch)));
        } finally {
          await r.close();
          await ch.close();
        }
      }
    });

    it('venue_a files: a failed file is retried by the resume, which ends as an uninterrupted run', async () => {
      // Trades and the candles that prices come from: eight files.
      const kinds = ['trades', 'klines'] as const;
      const urls = A_URLS.filter((u) => u.includes('/raw_trades') || u.includes('/ohlcv'));
      const ch = await chdbStore();
      const r = await reader(ch);
      try {
        await runA(ch, { concurrency: 1, kinds });
        const hooks = failAt(3, step, async () => {
          expect((await expectNoHalfRanges(r, urls, reference, reference)).length).toBeGreaterThan(0);
        });
        const forced = await runA(ch, { hooks, force: true, concurrency: 1, kinds });
        expect(forced.failed).toEqual([expect.stringContaining('simulated crash')]);
        const resumed = await runA(ch, { concurrency: 1, kinds });
        expect(resumed).toMatchObject({ done: 1, skipped: 7, failed: [] });
        expect(await answers(ch, urls)).toEqual(Object.fromEntries(urls.map((u) => [u, reference[u]])));
        expect(await prices(ch)).toEqual(referencePrices);
        expect(await duplicates(ch)).toEqual(none(await duplicates(ch)));
      } finally {
        await r.close();
        await ch.close();
      }
    });
  });
});
