/**
 * Live streams (docs/api.md, "Streams and cursors"), on the demo store:
 * - history replay: a bounded stream of ETH USDT transfers, rows per second
 *   from the request to `end`, ÷ the same blocks fetched as raw JSON pages of
 *   the same size one after another by one client (target ≥ 0.8);
 * - idle followers: a 10-block JSON query's p50 and p99 with N streams open
 *   that follow the head and have nothing to send ÷ the same query with none
 *   (target ≤ 1.2), the two phases alternated so both meet the same machine;
 * - commit-to-client latency (bench/lib/streamLatency.ts): p50 and p99 from
 *   a block's publish to its `rows` event at each of N following streams
 *   (target p99 ≤ 1 s), ÷ the same with one stream, rounds alternated.
 * Sizes: CHAINQ_BENCH_STREAMS_DAYS (demo days, 2), CHAINQ_BENCH_STREAMS_BLOCKS
 * (replayed blocks, 12,000: more than one batch of the stream),
 * CHAINQ_BENCH_STREAMS_FOLLOWERS (200).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { rangeLimit } from '../../src/catalog/formats.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createStore } from '../../src/store/openStore.ts';
import { createKeyCli, startServer } from '../lib/serverProcess.ts';
import { measureCommitToClient } from '../lib/streamLatency.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';

const ETH = DEMO_START_BLOCKS.ETH ?? 0;
const DAYS = Number(process.env.CHAINQ_BENCH_STREAMS_DAYS ?? 2);
const REPLAY_BLOCKS = Number(process.env.CHAINQ_BENCH_STREAMS_BLOCKS ?? 12_000);
const FOLLOWERS = Number(process.env.CHAINQ_BENCH_STREAMS_FOLLOWERS ?? 200);
const SMALL_RUNS = 150;
const ROUNDS = 3;
const SETTLE_MS = 2_000;
const LATENCY_BLOCKS = 20;
const LATENCY_GAP_MS = 500;
const RAW = '/v1/evm/erc20/events/transfer?network=ETH&token=USDT&format=json';
const STREAM = '/v1/evm/erc20/events/transfer/stream?network=ETH&token=USDT';
const SMALL = `${RAW}&block_start=${ETH + 1000}&block_end=${ETH + 1009}`;

const quantile = (xs: readonly number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;
const median = (xs: readonly number[]) => quantile(xs, 0.5);
const round = (n: number) => Math.round(n * 1000) / 1000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One GET read to its end: its time, bytes and status. */
function get(base: string, url: string, key: string): Promise<{ ms: number; body: string; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    http
      .get(`${base}${url}`, { headers: { 'x-api-key': key }, agent }, (res) => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ms: performance.now() - t0, body: Buffer.concat(chunks).toString('utf8'), status: res.statusCode ?? 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Rows in an SSE body: the `events` arrays of its `rows` events. */
function streamRows(body: string): number {
  let n = 0;
  for (const block of body.split('\n\n')) {
    if (!block.startsWith('event: rows')) continue;
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (data) n += (JSON.parse(data.slice(6)) as { events: unknown[] }).events.length;
  }
  return n;
}

async function replayByStream(base: string, key: string, from: number, to: number): Promise<{ ms: number; rows: number }> {
  const r = await get(base, `${STREAM}&block_start=${from}&block_end=${to}`, key);
  if (r.status !== 200 || !r.body.includes('event: end')) throw new Error(`the replay stream did not end cleanly (${r.status}): ${r.body.slice(-300)}`);
  return { ms: r.ms, rows: streamRows(r.body) };
}

/** The same blocks as raw JSON pages of the stream's batch size, one after another. */
async function replayByPages(base: string, key: string, from: number, to: number, page: number): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  let rows = 0;
  for (let a = from; a <= to; a += page) {
    const r = await get(base, `${RAW}&block_start=${a}&block_end=${Math.min(to, a + page - 1)}`, key);
    if (r.status !== 200) throw new Error(`raw page ${a} answered ${r.status}: ${r.body.slice(0, 300)}`);
    rows += (JSON.parse(r.body) as { events: unknown[] }).events.length;
  }
  return { ms: performance.now() - t0, rows };
}

async function smallQueries(base: string, key: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SMALL_RUNS; i++) {
    const r = await get(base, SMALL, key);
    if (r.status !== 200) throw new Error(`small query answered ${r.status}`);
    out.push(r.ms);
  }
  return out;
}

/** N streams following the head from its newest block: connected, sending nothing but heartbeats. */
async function openFollowers(base: string, key: string, n: number, from: number): Promise<{ opened: number; close(): void }> {
  const requests: http.ClientRequest[] = [];
  const ready = Array.from(
    { length: n },
    () =>
      new Promise<boolean>((resolve) => {
        const req = http.get(`${base}${STREAM}&block_start=${from}`, { headers: { 'x-api-key': key }, agent: false }, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            resolve(false);
            return;
          }
          // Connected once the first progress event arrives.
          res.once('data', () => resolve(true));
          res.on('data', () => undefined);
          res.on('error', () => undefined);
        });
        req.on('error', () => resolve(false));
        requests.push(req);
      }),
  );
  const opened = (await Promise.all(ready)).filter(Boolean).length;
  return {
    opened,
    close: () => {
      for (const r of requests) r.destroy();
    },
  };
}

async function serverFigures(ctx: BenchContext, dataDir: string, key: string, notes: string[]): Promise<BenchFigure[]> {
  const server = await startServer(ctx.root, dataDir);
  const page = rangeLimit('json', 'ETH').blocks;
  const from = ETH;
  const to = ETH + REPLAY_BLOCKS - 1;
  try {
    ctx.log(`history replay of ${REPLAY_BLOCKS} ETH blocks: stream vs raw JSON pages of ${page} blocks, ${ROUNDS} rounds alternated`);
    await replayByPages(server.url, key, from, to, page);
    await replayByStream(server.url, key, from, to);
    const streamMs: number[] = [];
    const pagesMs: number[] = [];
    let rows = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const s = await replayByStream(server.url, key, from, to);
      const p = await replayByPages(server.url, key, from, to, page);
      if (s.rows !== p.rows) throw new Error(`the stream delivered ${s.rows} rows, the raw pages ${p.rows}`);
      rows = s.rows;
      streamMs.push(s.ms);
      pagesMs.push(p.ms);
    }

    ctx.log(`small query p50/p99: ${ROUNDS} rounds of quiet, then with ${FOLLOWERS} idle followers`);
    await smallQueries(server.url, key);
    const head = ETH + Math.floor(7_200 * DAYS) - 1;
    const quiet: number[] = [];
    const loaded: number[] = [];
    let opened = FOLLOWERS;
    for (let i = 0; i < ROUNDS; i++) {
      quiet.push(...(await smallQueries(server.url, key)));
      const followers = await openFollowers(server.url, key, FOLLOWERS, head);
      try {
        opened = Math.min(opened, followers.opened);
        if (followers.opened < FOLLOWERS) throw new Error(`only ${followers.opened} of ${FOLLOWERS} followers connected`);
        // Each follower's first look at the store happens as it connects: measure once they all wait on the watcher.
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        loaded.push(...(await smallQueries(server.url, key)));
      } finally {
        followers.close();
      }
    }

    const rowsPerSecond = (ms: number) => rows / (ms / 1000);
    const figures: BenchFigure[] = [
      {
        name: `history replay of ${REPLAY_BLOCKS} ETH blocks (USDT transfers): stream rows/s`,
        ratio: round(rowsPerSecond(median(streamMs)) / rowsPerSecond(median(pagesMs))),
        ratio_meaning: 'rows per second of one bounded stream, request to end / of the same blocks as raw JSON pages fetched one after another (median of rounds)',
        baseline: `raw JSON pages of ${page} blocks (the stream's batch), same server, same run, alternated with the stream`,
        target: '>= 0.8',
        measured: { rows, rounds: ROUNDS, stream_ms_median: round(median(streamMs)), pages_ms_median: round(median(pagesMs)) },
      },
      {
        name: `small query (10 blocks, JSON) p50 with ${FOLLOWERS} idle following streams`,
        ratio: round(median(loaded) / median(quiet)),
        ratio_meaning: 'p50 with the followers connected / p50 with none',
        baseline: "the same query with no stream open, in rounds alternated with the followers' rounds, same server, same run",
        target: '<= 1.2',
        measured: { followers: opened, runs: SMALL_RUNS * ROUNDS, p50_ms: round(median(loaded)), quiet_p50_ms: round(median(quiet)) },
      },
      {
        name: `small query (10 blocks, JSON) p99 with ${FOLLOWERS} idle following streams`,
        ratio: round(quantile(loaded, 0.99) / quantile(quiet, 0.99)),
        ratio_meaning: 'p99 with the followers connected / p99 with none',
        baseline: "the same query with no stream open, in rounds alternated with the followers' rounds, same server, same run",
        target: '<= 1.2',
        measured: { followers: opened, runs: SMALL_RUNS * ROUNDS, p99_ms: round(quantile(loaded, 0.99)), quiet_p99_ms: round(quantile(quiet, 0.99)) },
      },
    ];
    notes.push(
      `demo: ${DAYS} day(s) at scale 1; replay blocks ${from}-${to}; small query: ${SMALL}; followers start at block ${head} and follow the head (no new blocks arrive); the followers' phase starts ${SETTLE_MS} ms after the last one connected`,
    );
    return figures;
  } finally {
    await server.stop();
  }
}

const ms = (n: number) => round(n);

async function latencyFigures(ctx: BenchContext, dataDir: string, key: string, notes: string[]): Promise<BenchFigure[]> {
  ctx.log(`commit-to-client latency: rounds of ${LATENCY_BLOCKS} published blocks, 1 and ${FOLLOWERS} following streams alternated`);
  const store = await createStore({ dataDir, threads: 2 });
  try {
    const rounds = await measureCommitToClient(ctx.root, store, key, [1, FOLLOWERS, 1, FOLLOWERS], LATENCY_BLOCKS, LATENCY_GAP_MS, ctx.log);
    const of = (n: number) => rounds.filter((r) => r.followers === n).flatMap((r) => r.latencies);
    const many = of(FOLLOWERS);
    const one = of(1);
    const missing = rounds.reduce((k, r) => k + r.missing, 0);
    if (missing > 0) throw new Error(`${missing} deliveries never arrived`);
    notes.push(
      `latency: one ETH block of 3 USDT transfers published every ${LATENCY_GAP_MS} ms through store.chain.publish by a server in the bench process (as ingestion runs inside chainq serve); followers read in a child process (bench/lib/sseFollowers.mjs); latency = arrival at a client - the publish's return; the chain watcher looks every 200 ms`,
    );
    const figure = (q: number, label: string): BenchFigure => ({
      name: `commit-to-client latency ${label} with ${FOLLOWERS} following streams`,
      ratio: round(quantile(many, q) / quantile(one, q)),
      ratio_meaning: `${label} with ${FOLLOWERS} streams / ${label} with one stream`,
      baseline: 'the same published blocks read by one stream, in rounds alternated with the many-stream rounds, same server, same run',
      target: q === 0.99 ? `p99_ms <= 1000 (absolute, from the issue)` : 'none (p99 is the target)',
      measured: {
        followers: FOLLOWERS,
        deliveries: many.length,
        [`${label}_ms`]: ms(quantile(many, q)),
        [`one_stream_${label}_ms`]: ms(quantile(one, q)),
        max_ms: ms(Math.max(...many)),
      },
    });
    return [figure(0.5, 'p50'), figure(0.99, 'p99')];
  } finally {
    await store.close();
  }
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  ctx.log(`loading the demo dataset (${DAYS} day)`);
  const { runCli } = await import('../../test/helpers/cli.ts');
  const demo = await runCli(['demo', '--data', dataDir, '--days', String(DAYS)]);
  if (demo.code !== 0) throw new Error(demo.stderr);
  const key = createKeyCli(ctx.root, dataDir);
  const notes: string[] = [];
  const only = process.env.CHAINQ_BENCH_STREAMS_ONLY;
  const figures = [...(only === 'latency' ? [] : await serverFigures(ctx, dataDir, key, notes)), ...(only === 'server' ? [] : await latencyFigures(ctx, dataDir, key, notes))];
  return { scenario: 'streams', figures, notes };
}
