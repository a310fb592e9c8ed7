/**
 * Idle memory of `chainq serve` on the demo store: its resident set size once
 * it listens and has settled, before any request, as a ratio to a bare
 * `node -e` process measured the same way in the same run. The target is on
 * the server's own figure (at most 120 MiB); the ratio says how much of it is
 * Node itself on this machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { median, rssOf, startServer } from '../lib/serverProcess.ts';
import type { BenchContext, BenchResult } from '../types.ts';

const RUNS = 3;
/** Time after "listening" for start-up garbage to be collected and the engine to go quiet. */
const SETTLE_MS = 5_000;
const TARGET_MIB = 120;

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

async function serverMiB(root: string, dataDir: string): Promise<{ nowMiB: number; peakMiB: number }> {
  const server = await startServer(root, dataDir);
  try {
    await sleep(SETTLE_MS);
    return rssOf(server.pid);
  } finally {
    await server.stop();
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  ctx.log('writing the demo store (chainq demo)…');
  execFileSync(process.execPath, [path.join(ctx.root, 'bin/chainq.js'), 'demo', '--data', dataDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const servers: { nowMiB: number; peakMiB: number }[] = [];
  const bare: number[] = [];
  // Interleaved, so that both meet the same moments of a shared machine.
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNodeMiB());
    servers.push(await serverMiB(ctx.root, dataDir));
    ctx.log(`run ${i + 1}: server ${round(servers[i]!.nowMiB)} MiB (peak ${round(servers[i]!.peakMiB)}), bare node ${round(bare[i]!)} MiB`);
  }
  const idle = median(servers.map((s) => s.nowMiB));
  const baseline = median(bare);
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
    ],
    notes: [
      `Median of ${RUNS} server starts (chainq serve --no-demo --log-level warn on a store written by chainq demo), RSS read from /proc ${SETTLE_MS / 1000} s after "listening", before any request.`,
    ],
  };
}
