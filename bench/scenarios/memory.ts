/**
 * Memory of `chainq serve` as it is run (the production build, which
 * `npm install` makes; bin/chainq.js falls back to tsx only when it is stale):
 * - idle on the demo store: its resident set size once it listens and has
 *   settled, before any request, as a ratio to a bare `node -e` process
 *   measured the same way in the same run. The target is on the server's own
 *   figure (at most 120 MiB); the ratio says how much of it is Node itself.
 * - streaming about a million rows (CSV, Parquet, JSON in turn, then the same
 *   query written to a download link) under `--memory-limit`: the peak as a
 *   share of the bound, beside the engine alone in a bare process running the
 *   same COPYs with the engine limit the server derived (the floor).
 * - exporting the same rows as export jobs, and ingesting an EVM chain, each
 *   in a server of its own under the same bound: the peak as a share of it.
 *
 * `CHAINQ_BENCH_MEMORY_ONLY=ingesting` runs the ingesting phase alone (a
 * development aid: its result file then holds that figure only).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { startAnvil } from '../../test/helpers/anvil.ts';
import { createKeyCli, median, rssOf, startListening, timedGet } from '../lib/serverProcess.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';
import { buildChain } from './ingest-evm.ts';
import { ingestEvmArgs } from '../../test/helpers/ingestEvm.ts';

const RUNS = 3;
/** Time after "listening" for start-up garbage to be collected and the engine to go quiet. */
const SETTLE_MS = 5_000;
const TARGET_MIB = 120;
/** Where the idle memory goes, for as long as the target is missed. */
const IDLE_PROFILE =
  "Where the idle memory goes (profiled by hand on the production build with --max-semi-space-size=4, gc() then process.memoryUsage() at each step of serve): modules loaded 88 MiB (bare node 40; V8 heap 12.4 MiB), the store opened 109 MiB (Node and @duckdb/node-api alone opening the same store: 93 MiB, the engine's catalog and the pages of libduckdb.so it touches), the app created 115 MiB (heap 16 MiB), listening 116 MiB. Loaded lazily since the previous figure (129.6 MiB): viem (about 14 MiB in the server: event selectors now come from keccak alone, the ABI codec is loaded by ingestion's first decoder that needs it), the route schemas (Fastify compiled all 120 at ready: 13.5 MiB; now each on its route's first request), the module-level JSON Schemas and ingestion's job runner.";
/**
 * The V8 flag package.json's start script and docs/deployment.md's systemd unit
 * give the server: young-generation space of 4 MiB per semi-space, instead of
 * up to 16 MiB that V8 grows while Fastify compiles its routes and keeps.
 */
const START_FLAGS = ['--max-semi-space-size=4'];
/** The serve-erc20 scenario's store: about a million USDT transfers in 10,000 ETH blocks. */
const STREAM_SCALE = 12;
const STREAM_FORMATS = ['csv', 'parquet', 'json'] as const;
/** The bound the streaming server runs under: `serve --memory-limit`'s default. */
const MEMORY_LIMIT = '640MiB';
const MEMORY_LIMIT_MIB = 640;
/** The earlier target, kept beside the new one: the engine's limit plus what the server may hold beyond it. */
const HEADROOM_MIB = 128;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS of a bare Node process that does nothing, after the same settle time. */
async function bareNodeMiB(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  try {
    await sleep(SETTLE_MS);
    if (child.pid === undefined) throw new Error('bare node did not start');
    return rssOf(child.pid).nowMiB;
  } finally {
    child.kill('SIGKILL');
  }
}

/** Samples a process's RSS every 20 ms: `mib()` is the highest seen so far, `stop()` ends the sampling and answers it. */
function samplePeak(pid: number): { mib: () => number; stop: () => number } {
  let peakMiB = 0;
  const timer = setInterval(() => {
    peakMiB = Math.max(peakMiB, rssOf(pid).nowMiB);
  }, 20);
  return {
    mib: () => peakMiB,
    stop: () => {
      clearInterval(timer);
      return peakMiB;
    },
  };
}

/** `node [flags] bin/chainq.js serve` on the data directory, with `extra` options. */
function startServer(root: string, dataDir: string, nodeFlags: readonly string[], extra: readonly string[] = []) {
  return startListening([...nodeFlags, path.join(root, 'bin/chainq.js'), 'serve', '--data', dataDir, '--port', '0', '--log-level', 'warn', '--no-demo', ...extra]);
}

async function serverMiB(root: string, dataDir: string, nodeFlags: readonly string[]): Promise<{ nowMiB: number; peakMiB: number }> {
  const server = await startServer(root, dataDir, nodeFlags);
  try {
    await sleep(SETTLE_MS);
    return rssOf(server.pid);
  } finally {
    await server.stop();
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  // As `npm install` and `npm start` leave it: the server runs from the production build.
  execFileSync(process.execPath, [path.join(ctx.root, 'scripts/build-server.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (process.env.CHAINQ_BENCH_MEMORY_ONLY === 'ingesting') {
    const ingesting = await ingestingFigure(ctx);
    return { scenario: 'memory', figures: [ingesting.figure], notes: [ingesting.note] };
  }
  const dataDir = path.join(ctx.workDir, 'data');
  ctx.log('writing the demo store (chainq demo)…');
  execFileSync(process.execPath, [path.join(ctx.root, 'bin/chainq.js'), 'demo', '--data', dataDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const servers: { nowMiB: number; peakMiB: number }[] = [];
  const started: number[] = [];
  const bare: number[] = [];
  // Interleaved, so that all meet the same moments of a shared machine.
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNodeMiB());
    const plain = await serverMiB(ctx.root, dataDir, []);
    servers.push(plain);
    const flagged = (await serverMiB(ctx.root, dataDir, START_FLAGS)).nowMiB;
    started.push(flagged);
    ctx.log(`run ${i + 1}: server ${round(plain.nowMiB)} MiB (peak ${round(plain.peakMiB)}), with ${START_FLAGS.join(' ')} ${round(flagged)} MiB, bare node ${round(bare[i] ?? 0)} MiB`);
  }
  const idle = median(servers.map((s) => s.nowMiB));
  const idleStarted = median(started);
  const baseline = median(bare);
  const streaming = await streamingFigures(ctx);
  return {
    scenario: 'memory',
    figures: [
      {
        name: 'chainq serve idle RSS after start, demo store (DuckDB)',
        ratio: round((idle / baseline) * 100) / 100,
        ratio_meaning: 'server idle RSS / bare node -e RSS (lower is better)',
        baseline: `node -e 'setInterval(…)' RSS, ${SETTLE_MS / 1000} s after spawn, same run`,
        target: `server idle RSS <= ${TARGET_MIB} MiB`,
        measured: {
          server_idle_rss_mib: round(idle),
          server_peak_rss_mib: round(median(servers.map((s) => s.peakMiB))),
          bare_node_rss_mib: round(baseline),
          server_over_bare_mib: round(idle - baseline),
          runs: RUNS,
          settle_seconds: SETTLE_MS / 1000,
          target_met: idle <= TARGET_MIB ? 'yes' : 'no',
        },
      },
      {
        name: `chainq serve idle RSS after start, demo store (DuckDB), as npm start and the systemd unit run it (node ${START_FLAGS.join(' ')})`,
        ratio: round((idleStarted / baseline) * 100) / 100,
        ratio_meaning: 'server idle RSS / bare node -e RSS (lower is better)',
        baseline: `node -e 'setInterval(…)' RSS, ${SETTLE_MS / 1000} s after spawn, same run`,
        target: `server idle RSS <= ${TARGET_MIB} MiB`,
        measured: {
          server_idle_rss_mib: round(idleStarted),
          without_the_flag_mib: round(idle),
          bare_node_rss_mib: round(baseline),
          runs: RUNS,
          target_met: idleStarted <= TARGET_MIB ? 'yes' : 'no',
        },
      },
      ...streaming.figures,
    ],
    notes: [
      `Median of ${RUNS} server starts (chainq serve --no-demo --log-level warn on a store written by chainq demo), RSS read from /proc ${SETTLE_MS / 1000} s after "listening", before any request.`,
      IDLE_PROFILE,
      ...streaming.notes,
    ],
  };
}

/** The server's peak while it streams about a million rows under --memory-limit, and the engine alone beside it. */
async function streamingFigures(ctx: BenchContext): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const dataDir = path.join(ctx.workDir, 'stream-data');
  const start = DEMO_START_BLOCKS.ETH;
  if (start === undefined) throw new Error('no ETH demo start block');
  const query = (format: string) => `/v1/evm/erc20/events/transfer?network=ETH&block_start=${start}&block_end=${start + 10_000}&format=${format}&token=USDT`;
  ctx.log(`writing ERC-20 transfers at demo scale ${STREAM_SCALE}…`);
  const copies: unknown = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ctx.root, 'bench/lib/memoryPrepare.ts'), dataDir, String(STREAM_SCALE), '1.4', ...STREAM_FORMATS.map(query)], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }),
  );
  const key = createKeyCli(ctx.root, dataDir);
  const server = await startServer(ctx.root, dataDir, START_FLAGS, ['--memory-limit', MEMORY_LIMIT, '--log-level', 'info']);
  let idleMiB = 0;
  let peakMiB = 0;
  const rows: Record<string, number> = {};
  try {
    await sleep(SETTLE_MS);
    idleMiB = rssOf(server.pid).nowMiB;
    const peak = samplePeak(server.pid);
    try {
      for (const format of STREAM_FORMATS) {
        for (let i = 0; i < 2; i++) {
          const t = await timedGet(`${server.url}${query(format)}`, { 'x-api-key': key });
          if (t.status !== 200) throw new Error(`${format}: HTTP ${t.status}`);
          rows[format] = t.bytes;
        }
        ctx.log(`streamed ${format} (${rows[format]} bytes): peak so far ${round(peak.mib())} MiB`);
      }
      const link = await timedGet(`${server.url}${query('csv')}&link=true`, { 'x-api-key': key });
      if (link.status !== 200) throw new Error(`link=true: HTTP ${link.status}`);
      ctx.log(`wrote the csv download link: peak so far ${round(peak.mib())} MiB`);
    } finally {
      peakMiB = peak.stop();
    }
    peakMiB = Math.max(peakMiB, rssOf(server.pid).peakMiB);
  } finally {
    await server.stop();
  }
  // The limit the server derived, as it logged it at start.
  const logged = /"engineMemoryLimit":(\d+)/.exec(server.stderr());
  if (!logged) throw new Error('the server did not log its memory budget');
  const engineLimitMiB = Number(logged[1]) / (1024 * 1024);
  ctx.log(`the engine alone with a ${engineLimitMiB} MiB limit: peak RSS over the same COPYs`);
  const floor = JSON.parse(
    execFileSync(
      process.execPath,
      [
        path.join(ctx.root, 'bench/lib/enginePeak.mjs'),
        JSON.stringify({
          db: path.join(dataDir, 'chainq.duckdb'),
          memoryLimit: `${engineLimitMiB}MiB`,
          threads: Math.max(2, os.availableParallelism()),
          runs: 2,
          file: path.join(ctx.workDir, 'engine-peak.out'),
          copies,
        }),
      ],
      { encoding: 'utf8' },
    ),
  ) as { opened_rss_mib: number; peak_rss_mib: number };
  const figures: BenchFigure[] = [
    {
      name: `server peak RSS while streaming about 1,000,000 rows (csv, parquet, json, then a csv download link) under --memory-limit ${MEMORY_LIMIT} (node ${START_FLAGS.join(' ')})`,
      ratio: round((peakMiB / MEMORY_LIMIT_MIB) * 1000) / 1000,
      ratio_meaning: 'peak RSS while streaming / --memory-limit (at most 1.0: the bound holds)',
      baseline: `the bound the server was given, ${MEMORY_LIMIT}; the engine alone in a bare process beside it (next figure)`,
      target: '<= 1.0',
      measured: {
        memory_limit_mib: MEMORY_LIMIT_MIB,
        engine_limit_mib: engineLimitMiB,
        idle_rss_mib: round(idleMiB),
        peak_rss_mib: round(peakMiB),
        peak_over_engine_limit_plus_128_mib: round((peakMiB / (engineLimitMiB + HEADROOM_MIB)) * 1000) / 1000,
        csv_bytes: rows.csv ?? 0,
        target_met: peakMiB <= MEMORY_LIMIT_MIB ? 'yes' : 'no',
      },
    },
    {
      name: 'the engine alone in a bare Node process, same COPYs to a file, with the engine limit the server derived',
      ratio: round((floor.peak_rss_mib / MEMORY_LIMIT_MIB) * 1000) / 1000,
      ratio_meaning: 'peak RSS of Node + @duckdb/node-api alone / --memory-limit: the floor under the server figure',
      baseline: 'the same bound; same engine limit, threads and store, same run',
      measured: {
        engine_alone_opened_rss_mib: round(floor.opened_rss_mib),
        engine_alone_peak_rss_mib: round(floor.peak_rss_mib),
        server_peak_rss_mib: round(peakMiB),
        server_over_engine_alone_mib: round(peakMiB - floor.peak_rss_mib),
      },
    },
  ];
  const exporting = await exportingFigure(ctx, dataDir, key, start);
  const ingesting = await ingestingFigure(ctx);
  const notes = [
    `Streaming: demo scale ${STREAM_SCALE} (ERC-20 only), ${query('<format>')}, each format twice then once with link=true; RSS sampled every 20 ms and the kernel's high-water mark (VmHWM) read at the end.`,
    exporting.note,
    ingesting.note,
  ];
  return { figures: [...figures, exporting.figure, ingesting.figure], notes };
}

/** Export formats and partition size of the exporting phase: the same 10,000 blocks as the streams, in four files each. */
const EXPORT_FORMATS = ['parquet', 'csv'] as const;
const EXPORT_PARTITION_BLOCKS = 2_500;

/** Starts one export job and reads its status until it is done. */
async function exportToTheEnd(base: string, key: string, body: Record<string, unknown>): Promise<{ rows: number; bytes: number }> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const started = await fetch(`${base}/v1/exports`, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer: unknown = await started.json();
  if (started.status !== 202 || typeof answer !== 'object' || answer === null || !('id' in answer)) throw new Error(`POST /v1/exports answered ${started.status}: ${JSON.stringify(answer)}`);
  for (;;) {
    const r = await fetch(`${base}/v1/exports/${String(answer.id)}`, { headers });
    const status: unknown = await r.json();
    if (typeof status !== 'object' || status === null || !('status' in status)) throw new Error(`GET /v1/exports: ${JSON.stringify(status)}`);
    if (status.status === 'done') return { rows: 'rows' in status ? Number(status.rows) : 0, bytes: 'bytes' in status ? Number(status.bytes) : 0 };
    if (status.status !== 'queued' && status.status !== 'running') throw new Error(`export ${String(answer.id)}: ${JSON.stringify(status)}`);
    await sleep(100);
  }
}

/**
 * The server's peak while export jobs (POST /v1/exports) write the same
 * million rows as Parquet, then CSV, under the same --memory-limit: a server
 * of its own, so that its high-water mark is the exports' alone.
 */
async function exportingFigure(ctx: BenchContext, dataDir: string, key: string, start: number): Promise<{ figure: BenchFigure; note: string }> {
  const server = await startServer(ctx.root, dataDir, START_FLAGS, ['--memory-limit', MEMORY_LIMIT]);
  let peakMiB = 0;
  let idleMiB = 0;
  const done: string[] = [];
  try {
    await sleep(SETTLE_MS);
    idleMiB = rssOf(server.pid).nowMiB;
    const peak = samplePeak(server.pid);
    try {
      for (const format of EXPORT_FORMATS) {
        const params = { network: 'ETH', token: 'USDT', block_start: start, block_end: start + 10_000 };
        const r = await exportToTheEnd(server.url, key, { endpoint: '/v1/evm/erc20/events/transfer', params, format, partition_blocks: EXPORT_PARTITION_BLOCKS });
        done.push(`${format}: ${r.rows} rows, ${r.bytes} bytes`);
        ctx.log(`exported ${format} (${r.rows} rows, ${r.bytes} bytes): peak so far ${round(peak.mib())} MiB`);
      }
    } finally {
      peakMiB = peak.stop();
    }
    peakMiB = Math.max(peakMiB, rssOf(server.pid).peakMiB);
  } finally {
    await server.stop();
  }
  return {
    figure: {
      name: `server peak RSS while export jobs write about 1,000,000 rows (${EXPORT_FORMATS.join(', then ')}, partitions of ${EXPORT_PARTITION_BLOCKS} blocks) under --memory-limit ${MEMORY_LIMIT} (node ${START_FLAGS.join(' ')})`,
      ratio: round((peakMiB / MEMORY_LIMIT_MIB) * 1000) / 1000,
      ratio_meaning: 'peak RSS while exporting / --memory-limit (at most 1.0: the bound holds)',
      baseline: `the bound the server was given, ${MEMORY_LIMIT}`,
      target: '<= 1.0',
      measured: { memory_limit_mib: MEMORY_LIMIT_MIB, idle_rss_mib: round(idleMiB), peak_rss_mib: round(peakMiB), target_met: peakMiB <= MEMORY_LIMIT_MIB ? 'yes' : 'no' },
    },
    note: `Exporting: a fresh server on the streaming store, POST /v1/exports of the same 10,000 blocks (${done.join('; ')}), each polled to done; RSS sampled every 20 ms and VmHWM read at the end.`,
  };
}

/**
 * The server's peak while it ingests an EVM chain under the same
 * --memory-limit: `chainq ingest evm` (every EVM dataset, as an operator runs
 * it by default) started beside a running server, which runs the job itself
 * (the CLI only shows its messages). Through the server, because that is
 * where --memory-limit bounds the whole process: without a server the CLI's
 * --memory-limit is the engine's limit alone. The chain is the ingest-evm
 * scenario's: 205,000 ERC-20 Transfer events in about 820 blocks of a local
 * anvil, so that batches reach their full size (about 50,000 events) with
 * four fetched ahead.
 */
async function ingestingFigure(ctx: BenchContext): Promise<{ figure: BenchFigure; note: string }> {
  const anvil = await startAnvil({ chainId: 1 });
  try {
    ctx.log('building the ingest-evm chain on anvil…');
    const chain = await buildChain(anvil);
    const dataDir = path.join(ctx.workDir, 'ingest-data');
    const server = await startServer(ctx.root, dataDir, START_FLAGS, ['--memory-limit', MEMORY_LIMIT]);
    let peakMiB = 0;
    let idleMiB = 0;
    let events = 0;
    let batches = 0;
    let seconds = 0;
    let logFilesMiB = 0;
    try {
      await sleep(SETTLE_MS);
      idleMiB = rssOf(server.pid).nowMiB;
      const peak = samplePeak(server.pid);
      const logFiles = sampleLogFiles(server.pid);
      const t0 = performance.now();
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          [path.join(ctx.root, 'bin/chainq.js'), ...ingestEvmArgs({ rpc: anvil.url, from: chain.from, to: chain.to, data: dataDir })],
          { encoding: 'utf8', maxBuffer: 1 << 26 },
        );
        // The job's messages, as JSON log lines: each committed batch names its events.
        for (const line of `${stdout}\n${stderr}`.split('\n')) {
          const m = /"event":"batch".*?"events":(\d+)/.exec(line);
          if (m) {
            events += Number(m[1]);
            batches++;
          }
        }
        if (!/running in the server/.test(`${stdout}${stderr}`)) throw new Error('chainq ingest evm did not run its job in the server');
      } finally {
        seconds = (performance.now() - t0) / 1000;
        peakMiB = peak.stop();
        logFilesMiB = logFiles.stop();
      }
      peakMiB = Math.max(peakMiB, rssOf(server.pid).peakMiB);
    } finally {
      await server.stop();
    }
    if (events < chain.events) throw new Error(`the ingestion job committed ${events} events, expected at least ${chain.events}`);
    ctx.log(`ingested ${events} events in ${batches} batches (${seconds.toFixed(1)} s): peak ${round(peakMiB)} MiB`);
    return {
      figure: {
        name: `server peak RSS while ingesting an EVM chain (chainq ingest evm, every EVM dataset, run by the server: ${chain.events.toLocaleString('en-US')} Transfer events) under --memory-limit ${MEMORY_LIMIT} (node ${START_FLAGS.join(' ')})`,
        ratio: round((peakMiB / MEMORY_LIMIT_MIB) * 1000) / 1000,
        ratio_meaning: 'peak RSS while ingesting / --memory-limit (at most 1.0: the bound holds)',
        baseline: `the bound the server was given, ${MEMORY_LIMIT}`,
        target: '<= 1.0',
        measured: {
          memory_limit_mib: MEMORY_LIMIT_MIB,
          idle_rss_mib: round(idleMiB),
          peak_rss_mib: round(peakMiB),
          peak_log_files_mib: round(logFilesMiB),
          events,
          batches,
          ingest_seconds: round(seconds),
          target_met: peakMiB <= MEMORY_LIMIT_MIB ? 'yes' : 'no',
        },
      },
      note: `Ingesting: a fresh server on an empty data directory under --memory-limit ${MEMORY_LIMIT}; chainq ingest evm (default datasets, --confirmations 0) of the ingest-evm scenario's anvil chain, started beside it, ran as a job in the server; ${events} events committed in ${batches} batches; RSS sampled every 20 ms and VmHWM read at the end. The batches' log files live in /dev/shm (shared memory, which the RSS does not count) from their fetch to their commit: their total, sampled with the RSS, peaked at ${round(logFilesMiB)} MiB.`,
    };
  } finally {
    await anvil.stop();
  }
}

/** Samples every 20 ms the bytes of the log files a process's ingestion holds in shared memory (src/ingest/evm/logFile.ts); `stop()` answers the peak in MiB. */
function sampleLogFiles(pid: number): { stop: () => number } {
  let peak = 0;
  const size = () => {
    let bytes = 0;
    let dirs: string[] = [];
    try {
      dirs = fs.readdirSync('/dev/shm').filter((d) => d.startsWith(`chainq-logs-${pid}-`));
    } catch {
      return 0;
    }
    for (const d of dirs) {
      try {
        for (const f of fs.readdirSync(path.join('/dev/shm', d))) bytes += fs.statSync(path.join('/dev/shm', d, f), { throwIfNoEntry: false })?.size ?? 0;
      } catch {
        // removed while we looked
      }
    }
    return bytes / (1024 * 1024);
  };
  const timer = setInterval(() => {
    peak = Math.max(peak, size());
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
