/**
 * `chainq ingest venue_a|venue_b --store chdb:DIR`: venue ingestion into
 * ClickHouse (chDB in process) from a local archive server serves exactly
 * what ingestion into DuckDB serves, endpoint by endpoint; killed with
 * SIGKILL mid-run and run again, it serves what an uninterrupted run serves;
 * and run as a job inside a server serving from chDB, the server answers
 * throughout and ends with the same answers (docs/storage.md, "Writes
 * without transactions").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { startServer } from '../helpers/server.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { comparable, rowCount, venueAUrls, venueBUrls } from '../helpers/venueAnswers.ts';
import * as fa from '../ingest/fixtures/venueA.ts';
import * as fb from '../ingest/fixtures/venueB.ts';

const DAY = 86_400_000;
const { D1, DEC, JAN } = fa.ARCHIVE;
const H0 = Date.UTC(2025, 11, 1);
const HOURS = 3;
const A_URLS = venueAUrls(fa.ARCHIVE.TOKENS, D1, 2, { lo: DEC, hi: JAN });
const B_URLS = venueBUrls(
  { tokens: ['BTC', 'KPEPE', 'ETH'], h0: H0, hours: HOURS },
  { tokens: ['BTC', 'KPEPE'], candleDays: { lo: H0 + DAY, hi: H0 + 3 * DAY }, fundingDays: { lo: H0, hi: H0 + 3 * DAY } },
);

let server: SourceServer;
let root: string;

beforeAll(async () => {
  server = await startSourceServer();
  for (const [k, v] of fa.buildArchive().files) server.files.set(k, v);
  const market = new fb.VenueBMarket();
  for (let h = 0; h < HOURS; h++) market.simulateHour(H0 + h * fb.HOUR, 100 + h);
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
      serverNow: Date.UTC(2025, 11, 4, 12),
      pageCap: 20,
    }),
  );
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ch-venues-'));
});

afterAll(async () => {
  await server?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const common = (store: string) => ['--store', store, '--retry-delay', '1', '--quiet', '--json'];
const venueA = (store: string, extra: readonly string[] = []) => [
  'ingest',
  'venue_a',
  '--token',
  'BTC,ETH',
  '--since',
  '2025-12-01',
  '--until',
  '2025-12-03',
  '--archive-url',
  server.url,
  ...common(store),
  ...extra,
];
const venueBFills = (store: string) => [
  'ingest',
  'venue_b',
  '--token',
  'BTC,kPEPE,ETH',
  '--since',
  '2025-12-01T00:00:00Z',
  '--until',
  '2025-12-01T03:00:00Z',
  '--source',
  server.url,
  '--info-url',
  `${server.url}/info`,
  '--datasets',
  'fills',
  ...common(store),
];
const venueBInfo = (store: string) => [
  'ingest',
  'venue_b',
  '--token',
  'BTC,kPEPE',
  '--since',
  '2025-12-01',
  '--until',
  '2025-12-04',
  '--info-url',
  `${server.url}/info`,
  '--datasets',
  'candles,funding',
  ...common(store),
];

/** Runs an ingest command to the end; its JSON summary. */
async function ingest(args: readonly string[]): Promise<Record<string, unknown>> {
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

async function keyFor(store: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--plan', 'unlimited', '--store', store]);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim().split('\n').pop()!.trim();
}

async function get(url: string, key: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers: { 'x-api-key': key } });
  const text = await res.text();
  return { status: res.status, body: res.status === 200 ? comparable(res.headers.get('content-type') ?? '', text) : text };
}

/** Every URL's answer from a server on `dir` (and `--store`), each required to be a 200. */
async function answers(dir: string, store: string, urls: readonly string[]): Promise<Record<string, unknown>> {
  const s = await startServer(dir, ['--store', store], await keyFor(store));
  try {
    const out: Record<string, unknown> = {};
    for (const url of urls) {
      const { status, body } = await get(`${s.url}${url}`, s.key);
      expect(status, `${url}: ${String(body)}`).toBe(200);
      out[url] = body;
    }
    return out;
  } finally {
    await s.stop();
  }
}

describe('venue ingestion into ClickHouse (chDB), from the command line', () => {
  let onChdb: Record<string, unknown>;

  it('serves what ingestion into DuckDB serves, endpoint by endpoint', async () => {
    const duck = path.join(root, 'duck');
    const ch = path.join(root, 'ch');
    for (const store of [`duckdb:${duck}`, `chdb:${ch}`]) {
      expect(await ingest(venueA(store))).toMatchObject({ done: 18, failed: [], missing: [] });
      expect(await ingest(venueBFills(store))).toMatchObject({ done: HOURS, failed: [], missing: [] });
      expect(await ingest(venueBInfo(store))).toMatchObject({ done: 10, failed: [] });
    }
    const reference = await answers(duck, `duckdb:${duck}`, [...A_URLS, ...B_URLS]);
    for (const url of [...A_URLS, ...B_URLS]) expect(rowCount(reference[url]), url).toBeGreaterThan(0);
    onChdb = await answers(ch, `chdb:${ch}`, [...A_URLS, ...B_URLS]);
    expect(onChdb).toEqual(reference);
  });

  it('killed with SIGKILL mid-run and run again, serves what an uninterrupted run serves', async () => {
    const crashed = path.join(root, 'crashed');
    const args = venueA(`chdb:${crashed}`, ['--concurrency', '1']);
    // One file at a time: a file is published right after its checksum is read, before the next download.
    // The pauses land in different steps of a publish (seen: rows inserted and not yet covered at about 20 ms).
    for (const [files, pauseMs] of [
      [3, 0],
      [6, 20],
      [10, 60],
    ] as const) {
      const before = server.requests.length;
      const run = spawnCli(args);
      while (server.requests.slice(before).filter((r) => r.path.endsWith('.CHECKSUM')).length < files) {
        if (run.child.exitCode !== null) throw new Error(`chainq exited early: ${(await run.done).stderr}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      await new Promise((r) => setTimeout(r, pauseMs));
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
    }
    const last = await ingest(args);
    expect(last).toMatchObject({ failed: [] });
    expect(last.done as number).toBeGreaterThan(0);
    expect(last.skipped as number).toBeGreaterThan(0);
    const after = await answers(crashed, `chdb:${crashed}`, A_URLS);
    for (const url of A_URLS) expect(after[url], url).toEqual(onChdb[url]);
  });

  it('ingests as a job inside a server serving from chDB, which answers throughout and ends with the same answers', async () => {
    const live = path.join(root, 'live');
    const store = `chdb:${live}`;
    const key = await keyFor(store);
    const s = await startServer(live, ['--store', store], key);
    try {
      // The server holds the embedded store: the command hands the job to it and follows its progress.
      const job = spawnCli(venueBFills(store));
      const statuses = new Set<number>();
      while (job.child.exitCode === null) {
        statuses.add((await fetch(`${s.url}/v1/coverage`, { headers: { 'x-api-key': key } })).status);
        await new Promise((r) => setTimeout(r, 50));
      }
      const done = await job.done;
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout.trim().split('\n').pop()!)).toMatchObject({ done: HOURS, failed: [] });
      expect([...statuses]).toEqual([200]);
      const fills = B_URLS.filter((u) => !u.includes('/ohlcv') && !u.includes('/funding'));
      for (const url of fills) {
        const { status, body } = await get(`${s.url}${url}`, key);
        expect(status, url).toBe(200);
        expect(body, url).toEqual(onChdb[url]);
      }
    } finally {
      await s.stop();
    }
  });
});
