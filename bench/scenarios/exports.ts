/**
 * Export jobs (docs/api.md, "Exports"): about 5 million ERC-20 transfers
 * exported as Parquet in partitions of 5,000 blocks, from POST /v1/exports to
 * `done` in a freshly started server, against the store's engine alone in a
 * fresh process writing the same partitions with the same COPY statements,
 * one after another, the two alternated round by round (target ≤ 1.15); and a
 * small query's p50 and p99 from one client while an export runs, against the
 * same client on the same server when quiet, alternated (target ≤ 2).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKeyCli, median, startServer, type ServerProcess } from '../lib/serverProcess.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';

const ETH = DEMO_START_BLOCKS.ETH ?? 0;
// ≈1.8 million ETH transfers a day at scale 12, 7,200 blocks a day: 20,000 blocks hold ≈5 million rows.
const SCALE = 12;
const DAYS = Number(process.env.CHAINQ_BENCH_EXPORTS_DAYS ?? 2.9);
const BLOCKS = Number(process.env.CHAINQ_BENCH_EXPORTS_BLOCKS ?? 20_000);
const PARTITION_BLOCKS = 5_000;
// Five rounds: the per-round ratio spreads by ±5% on this machine; the median of five is steadier than of three.
const RUNS = 5;
const SMALL_RUNS = 200;
const SMALL_ROUNDS = 4;
const PARAMS = { network: 'ETH', token: 'USDT,USDC,WETH,WBTC,DAI', block_start: String(ETH), block_end: String(ETH + BLOCKS - 1) };
const SMALL = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH + 1000}&block_end=${ETH + 1009}&format=json`;

interface EngineRun {
  readonly ms: number;
  readonly rows: number;
  readonly bytes: number;
}

interface ExportStatus {
  readonly id: string;
  readonly status: string;
  readonly rows: number;
  readonly bytes: number;
  readonly partitions: number;
  readonly created_at: string;
  readonly finished_at: string | null;
  readonly error: unknown;
}

const agent = new http.Agent({ keepAlive: true });

function request(base: string, key: string, method: string, url: string, body?: unknown): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(`${base}${url}`, { method, agent, headers: { 'x-api-key': key, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Starts one export and reads its status every `pollMs` until it ends; the
 * wall time from the POST to `done`. Its files are deleted afterwards, so that
 * the runs do not fill the disk.
 */
async function exportOnce(server: ServerProcess, key: string, pollMs: number): Promise<{ ms: number; status: ExportStatus }> {
  const t0 = performance.now();
  const started = await request(server.url, key, 'POST', '/v1/exports', { endpoint: '/v1/evm/erc20/events/transfer', params: PARAMS, format: 'parquet', partition_blocks: PARTITION_BLOCKS });
  if (started.status !== 202) throw new Error(`POST /v1/exports answered ${started.status}: ${started.text}`);
  const { id } = JSON.parse(started.text) as { id: string };
  for (;;) {
    const r = await request(server.url, key, 'GET', `/v1/exports/${id}`);
    const status = JSON.parse(r.text) as ExportStatus;
    if (status.status === 'done') {
      const ms = performance.now() - t0;
      const removed = await request(server.url, key, 'DELETE', `/v1/exports/${id}`);
      if (removed.status >= 300) throw new Error(`DELETE /v1/exports/${id} answered ${removed.status}: ${removed.text}`);
      return { ms, status };
    }
    if (status.status === 'failed' || status.status === 'cancelled') throw new Error(`export ${id} ${status.status}: ${JSON.stringify(status.error)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function smallQueries(server: ServerProcess, key: string, until: () => boolean, most = Number.POSITIVE_INFINITY): Promise<number[]> {
  const out: number[] = [];
  while (!until() && out.length < most) {
    const r = await request(server.url, key, 'GET', SMALL);
    if (r.status !== 200) throw new Error(`small query answered ${r.status}: ${r.text}`);
    out.push(r.ms);
  }
  return out;
}

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const round = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 100) / 100]));

/** The store's engine alone writing the partitions, in a fresh process (bench/lib/exportsPrepare.ts). */
function engineAlone(ctx: BenchContext, dataDir: string, partitions: readonly [number, number][]): EngineRun {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ctx.root, 'bench/lib/exportsPrepare.ts'), 'engine', dataDir, path.join(ctx.workDir, 'engine-alone'), JSON.stringify({ params: PARAMS, partitions })],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as EngineRun;
}

/** One export in a freshly started server, stopped afterwards: as cold as the engine's fresh process. */
async function exportInFreshServer(ctx: BenchContext, dataDir: string, key: string): Promise<{ ms: number; status: ExportStatus }> {
  const server = await startServer(ctx.root, dataDir);
  try {
    return await exportOnce(server, key, 50);
  } finally {
    await server.stop();
  }
}

/** Small queries' times on the quiet server and during exports, and how long those exports took. */
interface Phases {
  readonly quiet: number[];
  readonly during: number[];
  readonly exportMs: number[];
}

/** In a freshly started server (with `flags`): a quiet phase of small queries, then small queries while one export runs. */
async function latencyRound(ctx: BenchContext, dataDir: string, key: string, flags: string[], into: Phases): Promise<void> {
  const server = await startServer(ctx.root, dataDir, flags);
  try {
    for (let i = 0; i < 20; i++) await request(server.url, key, 'GET', SMALL);
    into.quiet.push(...(await smallQueries(server, key, () => false, SMALL_RUNS / SMALL_ROUNDS)));
    let done = false;
    const running = exportOnce(server, key, 200).finally(() => {
      done = true;
    });
    into.during.push(...(await smallQueries(server, key, () => done)));
    into.exportMs.push((await running).ms);
  } finally {
    await server.stop();
  }
}

/** The demo's transfers: generated here, or copied from a store generated before (CHAINQ_BENCH_EXPORTS_DATA, for development). */
function prepareStore(ctx: BenchContext, dataDir: string): void {
  const cached = process.env.CHAINQ_BENCH_EXPORTS_DATA;
  if (cached) {
    fs.cpSync(cached, dataDir, { recursive: true });
    return;
  }
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ctx.root, 'bench/lib/exportsPrepare.ts'), 'generate', dataDir, String(SCALE), String(DAYS)], { stdio: 'inherit' });
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  const partitions: [number, number][] = [];
  for (let s = ETH; s < ETH + BLOCKS; s += PARTITION_BLOCKS) partitions.push([s, Math.min(s + PARTITION_BLOCKS, ETH + BLOCKS) - 1]);
  ctx.log(`generating the demo at scale ${SCALE} over ${DAYS} days`);
  prepareStore(ctx, dataDir);
  const key = createKeyCli(ctx.root, dataDir);

  ctx.log(`${RUNS} rounds: the engine alone writing ${partitions.length} partitions in a fresh process, and one export in a fresh server, in turn`);
  const engine: EngineRun[] = [];
  const exports: { ms: number; status: ExportStatus }[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Which goes first alternates, so that neither always meets the other's leftovers (page cache, disk writeback).
    if (i % 2 === 0) engine.push(engineAlone(ctx, dataDir, partitions));
    exports.push(await exportInFreshServer(ctx, dataDir, key));
    if (i % 2 === 1) engine.push(engineAlone(ctx, dataDir, partitions));
    ctx.log(`round ${i + 1}: engine ${engine[i]?.ms.toFixed(0)} ms, export ${exports[i]?.ms.toFixed(0)} ms`);
  }
  const engineRows = engine[0]?.rows ?? 0;
  const rows = exports[0]?.status.rows ?? 0;
  if (rows !== engineRows) throw new Error(`the export holds ${rows} rows, the engine wrote ${engineRows}`);
  const engineMs = median(engine.map((e) => e.ms));
  const exportMs = median(exports.map((e) => e.ms));
  const roundRatios = exports.map((e, i) => e.ms / (engine[i]?.ms ?? Number.NaN));
  const serverMs = median(exports.map((e) => Date.parse(e.status.finished_at ?? '') - Date.parse(e.status.created_at)));

  // Each round: the server as shipped (exports give way to requests), then the same server with
  // --no-export-yield (exports at full speed), each with a quiet phase and an export phase.
  const yielding: Phases = { quiet: [], during: [], exportMs: [] };
  const fullSpeed: Phases = { quiet: [], during: [], exportMs: [] };
  ctx.log(`one client: small queries on the quiet server and while an export runs, with and without --no-export-yield, in turn, until ${SMALL_RUNS} of each are timed`);
  while (yielding.quiet.length < SMALL_RUNS || yielding.during.length < SMALL_RUNS) {
    await latencyRound(ctx, dataDir, key, [], yielding);
    await latencyRound(ctx, dataDir, key, ['--no-export-yield'], fullSpeed);
  }
  const { quiet, during } = yielding;
  const figures: BenchFigure[] = [
    {
      name: `export of ${engineRows} rows as Parquet, ${partitions.length} partitions of ${PARTITION_BLOCKS} blocks`,
      ratio: exportMs / engineMs,
      ratio_meaning: 'POST /v1/exports to status done (client wall time, server freshly started) / the engine alone writing the same partitions one after another (fresh process)',
      baseline: `the store’s engine in a fresh process on the same store: each partition’s query planned as the export runner plans it, the same COPY to its own Parquet file, in turn with the export round by round (median of ${RUNS})`,
      target: '<= 1.15',
      measured: round({
        export_ms: exportMs,
        export_server_ms: serverMs,
        engine_ms: engineMs,
        rows: engineRows,
        engine_bytes: engine[0]?.bytes ?? 0,
        export_bytes: exports[0]?.status.bytes ?? 0,
        round_ratio_min: Math.min(...roundRatios),
        round_ratio_max: Math.max(...roundRatios),
      }),
    },
    {
      name: 'small query (10 blocks, JSON) p50, one client, while an export runs',
      ratio: quantile(during, 0.5) / quantile(quiet, 0.5),
      ratio_meaning: 'p50 during an export / p50 on the quiet server',
      baseline: 'the same client and query on the same server with no export running, in turn with the export phases',
      target: '<= 2',
      measured: round({
        during_p50_ms: quantile(during, 0.5),
        quiet_p50_ms: quantile(quiet, 0.5),
        during_requests: during.length,
        quiet_requests: quiet.length,
        export_during_queries_ms: median(yielding.exportMs),
      }),
    },
    {
      name: 'small query (10 blocks, JSON) p99, one client, while an export runs',
      ratio: quantile(during, 0.99) / quantile(quiet, 0.99),
      ratio_meaning: 'p99 during an export / p99 on the quiet server',
      baseline: 'the same client and query on the same server with no export running, in turn with the export phases',
      target: '<= 2',
      measured: round({ during_p99_ms: quantile(during, 0.99), quiet_p99_ms: quantile(quiet, 0.99) }),
    },
    {
      name: 'small query (10 blocks, JSON) p50 / p99, one client, while an export runs at full speed (--no-export-yield), for comparison',
      ratio: quantile(fullSpeed.during, 0.5) / quantile(fullSpeed.quiet, 0.5),
      ratio_meaning: 'p50 during an export that does not give way / p50 on the quiet server (p99 in measured)',
      baseline: 'the same client and query on the same server with no export running, in turn with the other phases',
      measured: round({
        during_p50_ms: quantile(fullSpeed.during, 0.5),
        quiet_p50_ms: quantile(fullSpeed.quiet, 0.5),
        p99_ratio: quantile(fullSpeed.during, 0.99) / quantile(fullSpeed.quiet, 0.99),
        during_p99_ms: quantile(fullSpeed.during, 0.99),
        quiet_p99_ms: quantile(fullSpeed.quiet, 0.99),
        during_requests: fullSpeed.during.length,
        export_during_queries_ms: median(fullSpeed.exportMs),
      }),
    },
  ];
  return { scenario: 'exports', figures };
}
