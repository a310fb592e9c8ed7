/**
 * Latency under load (README "Performance"): a small query (10 ETH blocks of
 * USDT transfers, JSON) end to end against DuckDB alone producing the same
 * rows, the two timed in turn; then 64 clients mixing small queries with 1,000-block CSVs,
 * 10,000-block Parquet files, 100,000-block aggregates, venue candles and
 * discovery, once with fair scheduling (export lanes) and once without
 * (`--no-lanes`), on the 2-day demo at scale 1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { defaultLaneLimits } from '../../src/store/exportLanes.ts';
import { engineBeside, type EngineBeside } from '../lib/engineBeside.ts';
import { createKeyCli, startServer, type ServerProcess } from '../lib/serverProcess.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';

const ETH = DEMO_START_BLOCKS.ETH!;
const ARB = DEMO_START_BLOCKS.ARB!;
const SMALL = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH + 1000}&block_end=${ETH + 1009}&format=json`;
const QUIET_RUNS = 300;
const CLIENTS = 64;
const LOAD_SECONDS = Number(process.env.CHAINQ_BENCH_LOAD_SECONDS ?? 30);

/** What the 64 clients ask, in turn; small queries are every other request. */
const MIX: readonly { kind: string; url: string }[] = [
  { kind: 'small', url: SMALL },
  { kind: 'csv_1k', url: `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH}&block_end=${ETH + 999}&format=csv` },
  { kind: 'small', url: SMALL },
  { kind: 'parquet_10k', url: `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH}&block_end=${ETH + 9_999}&format=parquet` },
  { kind: 'small', url: SMALL },
  { kind: 'aggregate_100k', url: `/v1/evm/erc20/events/transfer/aggregate?network=ARB&token=USDC&block_start=${ARB}&block_end=${ARB + 99_999}&group_by=time&period=1h&format=parquet` },
  { kind: 'small', url: SMALL },
  { kind: 'candles', url: '/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-02&window=1h&format=json' },
  { kind: 'small', url: SMALL },
  { kind: 'discovery', url: '/v1/protocols' },
];

interface Sample {
  readonly kind: string;
  readonly ms: number;
  readonly bytes: number;
  readonly status: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function get(base: string, url: string, key: string): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let bytes = 0;
    http
      .get(`${base}${url}`, { headers: { 'x-api-key': key }, agent }, (res) => {
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** One client's small queries; with `engine`, each one follows one run of the engine alone, and both are timed. */
async function quiet(server: ServerProcess, key: string, engine?: EngineBeside): Promise<{ http: number[]; engine: number[] }> {
  for (let i = 0; i < 20; i++) {
    await engine?.run();
    await get(server.url, SMALL, key);
  }
  const out = { http: [] as number[], engine: [] as number[] };
  for (let i = 0; i < QUIET_RUNS; i++) {
    if (engine) out.engine.push((await engine.run()).ms);
    out.http.push((await get(server.url, SMALL, key)).ms);
  }
  return out;
}

async function mixedLoad(server: ServerProcess, key: string): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const t0 = performance.now();
  const end = t0 + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; performance.now() < end; i++) {
        const { kind, url } = MIX[i % MIX.length]!;
        const r = await get(server.url, url, key);
        samples.push({ kind, ...r });
      }
    }),
  );
  return { samples, seconds: (performance.now() - t0) / 1000 };
}

function summary(load: { samples: Sample[]; seconds: number }) {
  const small = load.samples.filter((s) => s.kind === 'small').map((s) => s.ms);
  const bytes = load.samples.reduce((n, s) => n + s.bytes, 0);
  const failed = load.samples.filter((s) => s.status !== 200).length;
  const byKind: Record<string, number> = {};
  for (const s of load.samples) byKind[`requests_${s.kind}`] = (byKind[`requests_${s.kind}`] ?? 0) + 1;
  return { small_p50_ms: quantile(small, 0.5), small_p99_ms: quantile(small, 0.99), small_requests: small.length, bytes_per_s: bytes / load.seconds, requests: load.samples.length, failed, ...byKind };
}

interface PlannedRequest {
  readonly sql: string;
  readonly params: unknown;
  readonly options: string;
  readonly lane: 'light' | 'heavy';
}

interface EngineLoad {
  readonly quiet_p50_ms: number;
  readonly small_p50_ms: number;
  readonly small_p99_ms: number;
  readonly small_requests: number;
  readonly requests: number;
}

/** The mixed load on the engine alone (bench/lib/engineLoad.mjs), admitted through the server's default lanes. */
function runEngineLoad(ctx: BenchContext, dataDir: string, planned: (PlannedRequest | null)[]): EngineLoad {
  const threads = Math.max(2, os.availableParallelism());
  const limits = defaultLaneLimits(threads);
  const mix = MIX.map((m, i) => ({ kind: m.kind, ...planned[i] }));
  const spec = {
    db: path.join(dataDir, 'chainq.duckdb'),
    threads,
    memoryLimit: '256MB',
    dir: fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(),
    clients: CLIENTS,
    seconds: LOAD_SECONDS,
    quietRuns: QUIET_RUNS,
    light: limits.light,
    heavy: limits.heavy,
    small: mix.find((m) => m.kind === 'small'),
    mix,
  };
  return JSON.parse(
    execFileSync(process.execPath, [path.join(ctx.root, 'bench/lib/engineLoad.mjs'), JSON.stringify(spec)], {
      encoding: 'utf8',
      // As bin/chainq.js sizes it for the server.
      env: { ...process.env, UV_THREADPOOL_SIZE: '32' },
    }),
  ) as EngineLoad;
}

const round = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 100) / 100]));

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  ctx.log('loading the demo (scale 1, 2 days) and timing the engine alone on the small query');
  const engine = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ctx.root, 'bench/lib/latencyPrepare.ts'), dataDir, SMALL, String(QUIET_RUNS), ...MIX.map((m) => m.url)], {
      encoding: 'utf8',
    }),
  ) as { p50: number; bytes: number; sql: string; mix: (PlannedRequest | null)[] };
  ctx.log(`the engine alone: the same mixed load through the same lanes, no server, for ${LOAD_SECONDS} s`);
  const engineLoad = runEngineLoad(ctx, dataDir, engine.mix);
  const key = createKeyCli(ctx.root, dataDir);

  const beside = await engineBeside(ctx.root, ctx.workDir, dataDir, [engine.mix[MIX.findIndex((m) => m.kind === 'small')]!], fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
  const engineQuiet: number[] = [];
  const phases: Record<'lanes' | 'no_lanes', { quiet: number[]; load: ReturnType<typeof summary> }> = {} as never;
  try {
    for (const mode of ['lanes', 'no_lanes'] as const) {
      const server = await startServer(ctx.root, dataDir, mode === 'lanes' ? [] : ['--no-lanes']);
      try {
        ctx.log(`${mode}: one client, ${QUIET_RUNS} small queries${mode === 'lanes' ? ', each after one by the engine alone' : ''}`);
        const timed = await quiet(server, key, mode === 'lanes' ? beside : undefined);
        engineQuiet.push(...timed.engine);
        // Not running beside the load.
        beside.stop();
        ctx.log(`${mode}: ${CLIENTS} clients, mixed load for ${LOAD_SECONDS} s`);
        const load = summary(await mixedLoad(server, key));
        if (load.failed) throw new Error(`${load.failed} requests failed under load (${mode})`);
        phases[mode] = { quiet: timed.http, load };
      } finally {
        await server.stop();
      }
    }
  } finally {
    beside.stop();
  }
  const quietP50 = quantile(phases.lanes.quiet, 0.5);
  const lanes = phases.lanes.load;
  const off = phases.no_lanes.load;
  const figures: BenchFigure[] = [
    {
      name: 'small query (10 blocks, JSON) p50, one client',
      ratio: quietP50 / quantile(engineQuiet, 0.5),
      ratio_meaning: 'chainq end to end over HTTP / DuckDB alone running the same SQL to a file in process, the two timed in turn',
      baseline: 'DuckDB COPY of the same SQL, same rows, on a copy of the store in a process beside the server, alternating with the HTTP requests, same run',
      target: '<= 1.5',
      measured: round({
        http_p50_ms: quietP50,
        http_p99_ms: quantile(phases.lanes.quiet, 0.99),
        engine_p50_ms: quantile(engineQuiet, 0.5),
        engine_p99_ms: quantile(engineQuiet, 0.99),
        engine_bytes: engine.bytes,
        engine_p50_ms_before_the_server: engine.p50,
      }),
    },
    {
      name: `small query p50 under ${CLIENTS} clients of mixed load`,
      ratio: lanes.small_p50_ms / quietP50,
      ratio_meaning: 'p50 under load / p50 with no load',
      baseline: 'the same small query with one client and no load, same server, same run',
      target: '<= 5',
      measured: round({ ...lanes, quiet_p50_ms: quietP50 }),
    },
    {
      name: `small query p99 under ${CLIENTS} clients of mixed load`,
      ratio: lanes.small_p99_ms / quietP50,
      ratio_meaning: 'p99 under load / p50 with no load',
      baseline: 'the same small query with one client and no load, same server, same run',
      target: '<= 20',
      measured: round({ ...lanes, quiet_p50_ms: quietP50 }),
    },
    {
      name: 'mixed load throughput with fair scheduling',
      ratio: lanes.bytes_per_s / off.bytes_per_s,
      ratio_meaning: 'bytes per second served with export lanes / with --no-lanes (one queue)',
      baseline: 'the same mixed load on the same server with fair scheduling off, same run',
      target: '>= 0.9',
      measured: round({ lanes_bytes_per_s: lanes.bytes_per_s, no_lanes_bytes_per_s: off.bytes_per_s }),
    },
    {
      name: `the engine alone under the same load: small query p50 under ${CLIENTS} clients / its quiet p50`,
      ratio: engineLoad.small_p50_ms / engineLoad.quiet_p50_ms,
      ratio_meaning: 'p50 under load / p50 with no load, DuckDB alone running the same COPYs through the same lanes, no server: the floor under the p50 target',
      baseline: 'the same small COPY, one at a time, same process, same run',
      measured: round({ ...engineLoad }),
    },
    {
      name: `the engine alone under the same load: small query p99 under ${CLIENTS} clients / its quiet p50`,
      ratio: engineLoad.small_p99_ms / engineLoad.quiet_p50_ms,
      ratio_meaning: 'p99 under load / p50 with no load, DuckDB alone running the same COPYs through the same lanes, no server: the floor under the p99 target',
      baseline: 'the same small COPY, one at a time, same process, same run',
      measured: round({ ...engineLoad }),
    },
    {
      name: 'small query p50 under mixed load without fair scheduling (for comparison)',
      ratio: off.small_p50_ms / quantile(phases.no_lanes.quiet, 0.5),
      ratio_meaning: 'p50 under load / p50 with no load, --no-lanes',
      baseline: 'the same small query with one client and no load, same run',
      measured: round({ ...off, quiet_p50_ms: quantile(phases.no_lanes.quiet, 0.5) }),
    },
  ];
  return {
    scenario: 'latency',
    figures,
    notes: [
      `small query: ${SMALL}; engine SQL: ${engine.sql}`,
      `mixed load: ${CLIENTS} clients for ${LOAD_SECONDS} s each, cycling ${MIX.map((m) => m.kind).join(', ')}`,
      'profile of the small query, one client, per step (performance.now() around each, server and client in one process, requests back to back): snapshot 0.04 ms (opened ahead of the request, on a kept connection); planning and the hold 0.2 ms (cached lookups; the charge is written ahead here, in the thread pool, while the engine runs: docs/metering.md, "Charges written ahead"); the engine answers the 10-block JSON query in one piece 2.7 ms (to_json per row, read in place from the finished result, its statement prepared once per view connection and kept); envelope and the confirmed charge 0.1 ms (the durable write itself took 0.2-0.5 ms when it followed the engine); sending 0.2 ms; 3.5 ms in the server, 3.9 ms at the client. With a 4 ms pause before each request: 3.6 ms engine, 5.0 ms server, 5.7 ms client. A bare Node HTTP server sending the same 16.8 KB from memory, timed in turn with the engine alone, answers in 0.6 ms (0.3 ms back to back). Interleaved A/B of the previous build and this one, one server at a time, each request after one run of the engine alone: charges written ahead 1.69-1.76x -> 1.57-1.65x; two engine trips instead of five -> 1.47-1.55x; kept statements 1.47-1.49x -> 1.32-1.35x',
      'under this load (profiled in process, load from a child process, 15 s): the small query waits for a light slot 0 ms at p50 (240 ms at p90: behind candles and other small queries in the 8 slots), opens its view in 0.7 ms (3.8-5.6 ms before views reused connections), runs in the engine 30 ms (3.6 ms quiet), and its charge takes 0.7 ms (profiled before charges were written ahead) (13.6 ms when the journal write went through the thread pool, where a pool thread waits for a core behind the engine, and the journal was rotated with a directory fsync on every apply). The server uses both cores whole, the load generator 11% of one. So what is left is the engine sharing two cores with the server and the load generator: the engine alone, with both cores to itself, runs the same small COPY under the same load at 3-4x its quiet p50 (the floor figure of this run). 32 or 64 light slots, 4 or 8 engine threads, pausing heavy exports pipes while light ones run, and renicing the threads that stay busy for 40 ms did not lower the small p50 or p99. A heavy export whose client stops reading does not hold up small queries (measured: small p50 5.7 ms beside two stalled heavy exports, 4.1 ms alone)',
      'the engine alone under the same load (bench/lib/engineLoad.mjs): the same clients and mix, each request the COPY the server plans for it, through the same lanes, no server: it completes more requests than the server in the same time (requests in its figures), and its small query p50 and p99 are the floor figures above',
      'large exports (1M rows, CSV/Parquet/JSON) vs the engine alone and peak RSS: bench/results/serve-erc20.json; the 7-bucket aggregate: bench/results/aggregate.json',
    ],
  };
}
