/**
 * A 10,000-block ETH erc20 query (about 1,000,000 rows) end to end over HTTP
 * in each format, against DuckDB alone running the same SQL to a file (target
 * ≤ 1.15, README "Performance"); time to first byte; the server's peak RSS
 * while streaming, against the engine's memory limit + 128 MiB, idle RSS
 * beside it; and the same query served by PostgreSQL 15 through COPY … TO
 * STDOUT WITH CSV.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MEMORY_LIMIT, memoryBudget, parseMemorySize } from '../../src/cli/memoryLimit.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { defaultLaneLimits } from '../../src/store/exportLanes.ts';
import { engineBeside } from '../lib/engineBeside.ts';
import { cpuMsOf, createKeyCli, median, rssOf, startListening, startServer, timedGet, type ServerProcess, type Timing } from '../lib/serverProcess.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';

interface PreparedFormat {
  readonly ms: number;
  readonly cpuMs: number;
  /** The COPY to a file and into a fifo read by a bare Node process, timed in turn (medians). */
  readonly pipe: { readonly fileMs: number; readonly fifoMs: number };
  readonly rows: number;
  readonly sql: string;
  readonly params: unknown;
  readonly options: string;
  readonly file: string;
}

const SCALE = 12; // ≈250 ETH erc20 transfers per block; USDT is 40%: 10,000 blocks ≈ 1,000,000 rows
const RUNS = 3;
const FORMATS = ['csv', 'parquet', 'json'] as const;
/**
 * The engine limit the bench server runs with: what `chainq serve` derives from
 * its default --memory-limit with the engine threads and lanes it uses here.
 */
const ENGINE_LIMIT_MIB = (() => {
  const lanes = defaultLaneLimits(Math.max(2, os.availableParallelism()));
  return memoryBudget(parseMemorySize(DEFAULT_MEMORY_LIMIT), lanes.light + (lanes.heavy ?? 0)).engineBytes / (1024 * 1024);
})();
/** What the server may hold beyond the engine's limit while streaming (README "Performance"). */
const HEADROOM_MIB = 128;

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  const start = DEMO_START_BLOCKS.ETH!;
  const query = (format: string) => `/v1/evm/erc20/events/transfer?network=ETH&block_start=${start}&block_end=${start + 10_000}&format=${format}&token=`;
  const tokens = 'USDT';

  ctx.log(`generating demo at scale ${SCALE} and timing the engine alone`);
  const urls = FORMATS.map((f) => `${query(f)}${tokens}`);
  const prepared = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ctx.root, 'bench/lib/serveErc20Prepare.ts'), dataDir, ctx.workDir, String(SCALE), '1.4', String(RUNS), ...urls], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }),
  ) as Record<string, PreparedFormat>;
  const rows: Record<string, number> = {};
  for (const format of FORMATS) {
    rows[format] = prepared[format]!.rows;
    ctx.log(`engine alone ${format}: ${prepared[format]!.ms.toFixed(0)} ms for ${rows[format]} rows`);
  }
  const pgRowsFile = path.join(ctx.workDir, 'pg-rows.csv');

  ctx.log('the engine alone in a bare process: peak RSS over the same COPYs');
  const enginePeak = JSON.parse(
    execFileSync(
      process.execPath,
      [
        path.join(ctx.root, 'bench/lib/enginePeak.mjs'),
        JSON.stringify({
          db: path.join(dataDir, 'chainq.duckdb'),
          memoryLimit: `${ENGINE_LIMIT_MIB}MiB`,
          threads: Math.max(2, os.availableParallelism()),
          runs: RUNS + 1,
          file: path.join(ctx.workDir, 'engine-peak.out'),
          copies: FORMATS.map((f) => ({ sql: prepared[f]!.sql, params: prepared[f]!.params, options: prepared[f]!.options })),
        }),
      ],
      { encoding: 'utf8' },
    ),
  ) as { opened_rss_mib: number; peak_rss_mib: number };

  const key = createKeyCli(ctx.root, dataDir);
  // The engine alone on a copy of the store, timed in turn with each request (the baseline of the export figures).
  const engine = await engineBeside(
    ctx.root,
    ctx.workDir,
    dataDir,
    FORMATS.map((f) => prepared[f]!),
    ctx.workDir,
  );
  const server = await startServer(ctx.root, dataDir);
  const figures: BenchFigure[] = [];
  /** Each format's end-to-end time and CPU (server and client), medians. */
  const chainq: Record<string, { ms: number; cpuMs: number }> = {};
  /** Each format's engine alone, timed in turn with the requests (median): the baseline of the export figures. */
  const engineMs: Record<string, number> = {};
  try {
    const idle = rssOf(server.pid);
    let peakWhileStreaming = 0;
    const sampler = setInterval(() => {
      peakWhileStreaming = Math.max(peakWhileStreaming, rssOf(server.pid).nowMiB);
    }, 20);
    for (const [index, format] of FORMATS.entries()) {
      await engine.run(index);
      await timedGet(`${server.url}${query(format)}${tokens}`, { 'x-api-key': key }); // warm-up
      const timings = [];
      const cpu: number[] = [];
      const engineRuns: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        engineRuns.push((await engine.run(index)).ms);
        const measured = await withCpu(server, () => timedGet(`${server.url}${query(format)}${tokens}`, { 'x-api-key': key }));
        timings.push(measured.result);
        cpu.push(measured.cpuMs);
      }
      engineMs[format] = median(engineRuns);
      if (timings.some((t) => t.status !== 200)) throw new Error(`HTTP ${timings[0]!.status} for ${format}`);
      const total = median(timings.map((t) => t.totalMs));
      const ttfb = median(timings.map((t) => t.firstByteMs));
      chainq[format] = { ms: total, cpuMs: median(cpu) };
      figures.push({
        name: `erc20 ETH 10,000 blocks, ${rows[format]} rows, ${format}, end to end over HTTP`,
        ratio: total / engineMs[format]!,
        ratio_meaning: 'HTTP total time / DuckDB alone running the same SQL to a file, the two timed in turn',
        baseline: 'DuckDB COPY of the same SQL to a file, on a copy of the store, each run right before one request (bench/lib/engineBeside.ts)',
        target: '<= 1.15',
        measured: {
          http_ms: Math.round(total),
          engine_ms: Math.round(engineMs[format]!),
          // The engine's run before the server started, kept for context.
          engine_ms_before_the_server: Math.round(prepared[format]!.ms),
          bytes: timings[0]!.bytes,
          rows: rows[format]!,
        },
      });
      figures.push({
        name: `time to first byte, ${format}`,
        ratio: ttfb / total,
        ratio_meaning: 'time to first byte / total response time (lower = streams sooner)',
        baseline: "the same response's total time",
        measured: { ttfb_ms: Math.round(ttfb), total_ms: Math.round(total) },
      });
    }
    clearInterval(sampler);
    const after = rssOf(server.pid);
    const peak = Math.max(peakWhileStreaming, after.peakMiB);
    figures.push({
      name: `server peak RSS while streaming ${rows.csv} rows (csv, parquet, json)`,
      ratio: peak / (ENGINE_LIMIT_MIB + HEADROOM_MIB),
      ratio_meaning: `peak RSS while streaming / (the engine's memory limit, ${ENGINE_LIMIT_MIB} MiB, + ${HEADROOM_MIB} MiB)`,
      baseline: 'the configured engine memory limit plus 128 MiB; idle RSS of the same server beside it',
      target: '<= 1',
      measured: {
        idle_rss_mib: Math.round(idle.nowMiB),
        peak_rss_mib: Math.round(peak),
        growth_over_idle_mib: Math.round(peak - idle.nowMiB),
        engine_limit_mib: ENGINE_LIMIT_MIB,
        engine_alone_peak_rss_mib: Math.round(enginePeak.peak_rss_mib),
      },
    });
    figures.push({
      name: `the engine alone in a bare Node process, same COPYs to a file: peak RSS against the target`,
      ratio: enginePeak.peak_rss_mib / (ENGINE_LIMIT_MIB + HEADROOM_MIB),
      ratio_meaning: `peak RSS of Node + @duckdb/node-api alone (no server) running the same COPYs / (the engine's memory limit + ${HEADROOM_MIB} MiB): the floor under the target`,
      baseline: 'the same target as the server peak; same limit, same threads, same run',
      measured: {
        engine_alone_opened_rss_mib: Math.round(enginePeak.opened_rss_mib),
        engine_alone_peak_rss_mib: Math.round(enginePeak.peak_rss_mib),
        server_idle_rss_mib: Math.round(idle.nowMiB),
        server_peak_rss_mib: Math.round(peak),
        server_growth_mib: Math.round(peak - idle.nowMiB),
        engine_alone_growth_mib: Math.round(enginePeak.peak_rss_mib - enginePeak.opened_rss_mib),
      },
    });

    const pg = await postgresFigure(ctx, pgRowsFile, start, engineMs.csv!, Math.round(chainq.csv!.ms));
    if (pg) figures.push(pg);
  } finally {
    engine.stop();
    await server.stop();
  }
  figures.push(...(await deliveryFigures(ctx, prepared, chainq, engineMs)));
  // Fresh servers of their own: the store admits one server at a time.
  figures.push(await flatnessFigure(ctx, dataDir, key, start));
  return {
    scenario: 'serve-erc20',
    figures,
    notes: [`demo scale ${SCALE}; query: ${query('<format>')}${tokens}; median of ${RUNS} runs after a warm-up`, `SQL: ${prepared.csv!.sql}`],
  };
}

/** Runs `fn` and reports the CPU that `server` and this process (the client) used meanwhile. */
async function withCpu<T>(server: ServerProcess, fn: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const s0 = cpuMsOf(server.pid);
  const c0 = process.cpuUsage();
  const result = await fn();
  const c = process.cpuUsage(c0);
  return { result, cpuMs: cpuMsOf(server.pid) - s0 + (c.user + c.system) / 1000 };
}

/**
 * Where a large export's time goes beyond the engine's. The same bytes the
 * engine wrote are sent from memory by a bare Node HTTP server to the same
 * client (bench/lib/deliveryServer.mjs): the CPU of delivering them. The
 * engine's CPU plus that is about the work any streamed answer needs (the
 * engine alone writes a file where chainq writes a pipe, so it is an
 * estimate); spread perfectly over the machine's cores it gives the estimated
 * least time. chainq's CPU for the response (server and client) against the
 * same sum shows whether chainq adds work of its own.
 */
async function deliveryFigures(
  ctx: BenchContext,
  prepared: Record<string, PreparedFormat>,
  chainq: Record<string, { ms: number; cpuMs: number }>,
  engineMs: Record<string, number>,
): Promise<BenchFigure[]> {
  const cores = os.availableParallelism();
  const delivery = await startListening([path.join(ctx.root, 'bench/lib/deliveryServer.mjs'), ...FORMATS.map((f) => prepared[f]!.file)]);
  const out: BenchFigure[] = [];
  try {
    for (const [i, format] of FORMATS.entries()) {
      const url = `${delivery.url}/${i}`;
      await timedGet(url, {}); // warm-up
      const runs: { result: Timing; cpuMs: number }[] = [];
      for (let r = 0; r < RUNS; r++) runs.push(await withCpu(delivery, () => timedGet(url, {})));
      const deliveryMs = median(runs.map((r) => r.result.totalMs));
      const deliveryCpu = median(runs.map((r) => r.cpuMs));
      // The same bytes out of a fifo, as chainq reads the engine's export (bench/lib/deliveryServer.mjs).
      const pipeUrl = `${delivery.url}/pipe/${i}`;
      await timedGet(pipeUrl, {}); // warm-up
      const pipeRuns = [];
      for (let r = 0; r < RUNS; r++) pipeRuns.push(await withCpu(delivery, () => timedGet(pipeUrl, {})));
      if (pipeRuns.some((r) => r.result.bytes !== runs[0]!.result.bytes)) throw new Error(`the pipe delivery of ${format} lost bytes`);
      const pipeDeliveryCpu = median(pipeRuns.map((r) => r.cpuMs));
      const engine = prepared[format]!;
      const floorMs = Math.max(engine.ms, (engine.cpuMs + deliveryCpu) / cores);
      const pipeFloorMs = Math.max(engine.ms, (engine.cpuMs + pipeDeliveryCpu) / cores);
      /** The end-to-end ratio (against the engine timed in turn with the requests) over the floor's ratio (against the engine of the same run). */
      const overFloor = chainq[format]!.ms / engineMs[format]! / (floorMs / engine.ms);
      out.push({
        name: `the engine alone writing the ${format} export into a pipe read by a bare Node process, against the same COPY to a file`,
        ratio: engine.pipe.fifoMs / engine.pipe.fileMs,
        ratio_meaning:
          "DuckDB's COPY into a fifo read through Node's event loop (as the server reads an export, no HTTP, no server) / the same COPY to a file, timed in turn: the floor of streaming the engine's bytes through a pipe",
        baseline: 'DuckDB COPY of the same SQL to a file, in turn with the pipe runs, same process',
        measured: { file_ms: Math.round(engine.pipe.fileMs), pipe_ms: Math.round(engine.pipe.fifoMs), chainq_http_ms: Math.round(chainq[format]!.ms), engine_ms: Math.round(engine.ms) },
      });
      out.push({
        name: `estimated least time for the ${format} export on ${cores} cores: engine CPU + delivery CPU spread over the cores, against the engine alone`,
        ratio: floorMs / engine.ms,
        ratio_meaning: `max(engine wall, (engine CPU + CPU to deliver the same bytes over HTTP to the same client) / ${cores} cores) / engine wall: about the best ratio a streamed answer can reach here (compare the end-to-end ratio)`,
        baseline: 'DuckDB COPY of the same SQL to a file, same run',
        measured: {
          engine_ms: Math.round(engine.ms),
          engine_cpu_ms: Math.round(engine.cpuMs),
          delivery_ms: Math.round(deliveryMs),
          delivery_cpu_ms: Math.round(deliveryCpu),
          floor_ms: Math.round(floorMs),
          chainq_http_ms: Math.round(chainq[format]!.ms),
        },
      });
      out.push({
        name: `${format} export end to end ÷ engine alone, over the delivery floor's ratio`,
        ratio: overFloor,
        ratio_meaning: '(chainq HTTP time / the engine alone timed in turn with the requests) / (estimated least time / the engine alone of the same run): 1.0 = chainq at the delivery floor',
        baseline: 'the estimated least time (engine CPU + bare delivery CPU over the cores), same run',
        target: '<= 1.1',
        measured: { chainq_http_ms: Math.round(chainq[format]!.ms), engine_beside_ms: Math.round(engineMs[format]!), floor_ms: Math.round(floorMs), engine_ms: Math.round(engine.ms) },
      });
      out.push({
        name: `estimated least time for the ${format} export read from a pipe: engine CPU + CPU to deliver the same bytes out of a fifo, over the cores, against the engine alone`,
        ratio: pipeFloorMs / engine.ms,
        ratio_meaning: `max(engine wall, (engine CPU + CPU to deliver the bytes as they come out of a fifo written in 2 MiB writes, over HTTP to the same client) / ${cores} cores) / engine wall: the delivery floor of a design that streams the engine's output through a pipe`,
        baseline: 'DuckDB COPY of the same SQL to a file, same run',
        measured: {
          engine_cpu_ms: Math.round(engine.cpuMs),
          delivery_cpu_ms: Math.round(deliveryCpu),
          pipe_delivery_cpu_ms: Math.round(pipeDeliveryCpu),
          pipe_floor_ms: Math.round(pipeFloorMs),
          chainq_cpu_ms: Math.round(chainq[format]!.cpuMs),
          chainq_over_pipe_floor: Number((chainq[format]!.ms / engineMs[format]! / (pipeFloorMs / engine.ms)).toFixed(3)),
        },
      });
      out.push({
        name: `CPU of a chainq ${format} response (server and client) against the engine's CPU plus delivery's`,
        ratio: chainq[format]!.cpuMs / (engine.cpuMs + deliveryCpu),
        ratio_meaning: 'chainq server + client CPU / (engine alone CPU + bare delivery server + client CPU); 1.0 = chainq adds no work of its own',
        baseline: 'the engine alone and the bare delivery server, same bytes, same run',
        measured: { chainq_cpu_ms: Math.round(chainq[format]!.cpuMs), engine_cpu_ms: Math.round(engine.cpuMs), delivery_cpu_ms: Math.round(deliveryCpu) },
      });
    }
  } finally {
    await delivery.stop();
  }
  return out;
}

/**
 * Memory must not follow the result size: the peak RSS of a fresh server
 * streaming ~1,000,000 rows against a fresh server streaming ~100,000.
 */
async function flatnessFigure(ctx: BenchContext, dataDir: string, key: string, start: number): Promise<BenchFigure> {
  const peakFor = async (blocks: number) => {
    const server = await startServer(ctx.root, dataDir);
    try {
      const t = await timedGet(`${server.url}/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${start}&block_end=${start + blocks}&format=csv`, { 'x-api-key': key });
      if (t.status !== 200) throw new Error(`HTTP ${t.status}`);
      return { peak: rssOf(server.pid).peakMiB, bytes: t.bytes };
    } finally {
      await server.stop();
    }
  };
  const small = await peakFor(1_000);
  const large = await peakFor(10_000);
  return {
    name: 'server peak RSS, ~1,000,000-row CSV response vs ~100,000-row response (fresh server each)',
    ratio: large.peak / small.peak,
    ratio_meaning: 'peak RSS for 10x the rows / peak RSS for 1x (1.0 = flat)',
    baseline: 'a fresh server streaming a 1,000-block response, same run',
    measured: { small_peak_mib: Math.round(small.peak), large_peak_mib: Math.round(large.peak), small_bytes: small.bytes, large_bytes: large.bytes },
  };
}

/** The same query from PostgreSQL 15 with a (network, block_number) index, through COPY … TO STDOUT WITH CSV. */
async function postgresFigure(ctx: BenchContext, rowsFile: string, start: number, _engineMs: number, chainqMs: number): Promise<BenchFigure | null> {
  const bin = ['/usr/lib/postgresql/15/bin', '/usr/local/bin'].find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!bin) {
    ctx.log('PostgreSQL 15 is not installed: `apt-get install -y postgresql-15` enables the comparison; skipped');
    return null;
  }
  const pgDir = path.join(ctx.workDir, 'pg');
  fs.mkdirSync(pgDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const wrap = (cmd: string, args: string[]) => (asRoot ? (['runuser', ['-u', 'postgres', '--', cmd, ...args]] as const) : ([cmd, args] as const));
  if (asRoot) execFileSync('chown', ['-R', 'postgres', pgDir, path.dirname(rowsFile)]);
  fs.chmodSync(rowsFile, 0o644);
  const port = String(55_000 + Math.floor(Math.random() * 5000));
  const run = (cmd: string, args: string[]) => {
    const [c, a] = wrap(cmd, args);
    return execFileSync(c, [...a], { encoding: 'utf8' });
  };
  run(path.join(bin, 'initdb'), ['-D', path.join(pgDir, 'db'), '-A', 'trust', '-U', 'postgres']);
  const [c, a] = wrap(path.join(bin, 'postgres'), ['-D', path.join(pgDir, 'db'), '-p', port, '-k', pgDir, '-c', 'listen_addresses=']);
  const pg = spawn(c, [...a], { stdio: 'ignore' });
  try {
    const psql = (sql: string) =>
      execFileSync('psql', ['-h', pgDir, '-p', port, '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql], { encoding: 'utf8', maxBuffer: 1 << 30 });
    for (let i = 0; i < 50; i++) {
      try {
        psql('SELECT 1');
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    psql(
      `CREATE TABLE evm_erc20_transfer (network text, block_number bigint, log_index int, time timestamp, tx_hash text, token_address text, token text, sender text, receiver text, amount double precision)`,
    );
    psql(`COPY evm_erc20_transfer FROM '${rowsFile}' WITH (FORMAT csv, HEADER true)`);
    psql(`CREATE INDEX ON evm_erc20_transfer (network, block_number); ANALYZE evm_erc20_transfer`);
    const sql = `COPY (SELECT block_number, token, sender, receiver, amount, to_char(time, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS time FROM evm_erc20_transfer WHERE network = 'ETH' AND block_number BETWEEN ${start} AND ${start + 10_000} AND token_address = '0xdac17f958d2ee523a2206206994597c13d831ec7' ORDER BY block_number, log_index) TO STDOUT WITH CSV HEADER`;
    const times: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        const p = spawn('psql', ['-h', pgDir, '-p', port, '-U', 'postgres', '-d', 'postgres', '-qAt', '-c', sql], { stdio: ['ignore', 'pipe', 'inherit'] });
        p.stdout.on('data', () => undefined);
        p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}`))));
      });
      if (i > 0) times.push(performance.now() - t0);
    }
    const pgMs = median(times);
    return {
      name: 'the same CSV query served by PostgreSQL 15 with a (network, block_number) index',
      ratio: chainqMs / pgMs,
      ratio_meaning: 'chainq HTTP CSV time / PostgreSQL COPY (query) TO STDOUT WITH CSV via psql (lower is better for chainq)',
      baseline: 'PostgreSQL 15, same rows, same run',
      measured: { chainq_ms: Math.round(chainqMs), postgres_ms: Math.round(pgMs) },
    };
  } finally {
    pg.kill('SIGTERM');
  }
}
