/**
 * Black-box: `npm start` as a process supervisor or a terminal runs it. A
 * SIGTERM sent to the npm process must reach the server, which then shuts down
 * cleanly (store and meter closed, exit code 0) and npm reports that exit; a
 * Ctrl-C (SIGINT to the whole process group, which npm also forwards) is one
 * request to stop, not two, so the drain is not cut short.
 *
 * The test runs the real `npm start` (its `prestart` explorer build is a no-op
 * on a built checkout) on a fresh data directory with `--no-demo`: loading the
 * demo takes tens of seconds on a busy machine and has no part in signals.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

interface NpmStart {
  readonly npmPid: number;
  /** The `node bin/chainq.js serve` process npm runs. */
  readonly serverPid: number;
  readonly url: string;
  readonly logs: readonly { level?: number; msg?: string; forced?: boolean }[];
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Parent pid of `pid`, from /proc (Linux); null once the process is gone. */
function parentOf(pid: number): number | null {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  } catch {
    return null;
  }
}

/** The process whose command line runs `bin/chainq.js serve` and descends from `root`. */
function serverUnder(root: number): number {
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes('bin/chainq.js\0serve')) continue;
    for (let p: number | null = pid; p !== null && p > 1; p = parentOf(p)) if (p === root) return pid;
  }
  throw new Error(`no chainq serve process under npm (pid ${root})`);
}

async function npmStart(): Promise<NpmStart> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-npm-start-'));
  dirs.push(dataDir);
  // Its own process group, so that the Ctrl-C test can signal the group as a terminal does.
  const child = spawn('npm', ['start', '--', '--data', dataDir, '--port', '0', '--no-demo', '--log-level', 'info'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: NpmStart['logs'][number][] = [];
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as NpmStart['logs'][number]);
    } catch {
      // npm's own lines are not JSON.
    }
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exit.then((e) => reject(new Error(`npm start exited (${e.code ?? e.signal}) before listening: ${out}`)));
  });
  if (child.pid === undefined) throw new Error('npm did not start');
  return { npmPid: child.pid, serverPid: serverUnder(child.pid), url, logs, exit };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function connects(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(port), hostname);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** npm's exit, or a failure if it has not exited within `ms` (the server is then killed, so that nothing is left running). */
async function exitedWithin(run: NpmStart, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`npm start did not exit within ${ms} ms of the signal`)), ms);
  });
  try {
    return await Promise.race([run.exit, late]);
  } finally {
    clearTimeout(timer);
  }
}

function cleanUp(run: NpmStart) {
  for (const pid of [run.serverPid, run.npmPid]) if (alive(pid)) process.kill(pid, 'SIGKILL');
}

describe('npm start', () => {
  it('stops the server cleanly on SIGTERM to the npm process, and exits with its code', async () => {
    const run = await npmStart();
    try {
      expect(await connects(run.url)).toBe(true);
      process.kill(run.npmPid, 'SIGTERM');
      const exit = await exitedWithin(run, 30_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(alive(run.serverPid)).toBe(false);
      expect(await connects(run.url)).toBe(false);
      // The server went through its shutdown: store, meter and listeners closed, not killed mid-way.
      expect(run.logs.find((l) => l.msg === 'stopped')).toMatchObject({ forced: false });
      expect(run.logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
    } finally {
      cleanUp(run);
    }
  });

  it('takes a Ctrl-C (SIGINT to the process group, forwarded again by npm) as one request to stop', async () => {
    const run = await npmStart();
    try {
      process.kill(-run.npmPid, 'SIGINT');
      const exit = await exitedWithin(run, 30_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(alive(run.serverPid)).toBe(false);
      expect(await connects(run.url)).toBe(false);
      expect(run.logs.find((l) => l.msg === 'stopped')).toMatchObject({ forced: false });
      // No "second signal: ending the grace period now".
      expect(run.logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
    } finally {
      cleanUp(run);
    }
  });
});
