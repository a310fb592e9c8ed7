/** Starting a real `chainq serve` process for benchmarks, and measuring HTTP responses. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it has written to stderr so far (its logs). */
  stderr(): string;
  stop(): Promise<void>;
}

export function createKeyCli(root: string, dataDir: string, plan = 'unlimited'): string {
  const out = execFileSync(process.execPath, [path.join(root, 'bin/chainq.js'), 'keys', 'create', '--data', dataDir, '--plan', plan], { encoding: 'utf8' });
  return out.trim().split('\n').pop()!;
}

/** Starts `chainq serve` on a data directory and resolves once it listens. */
export function startServer(root: string, dataDir: string, extra: string[] = []): Promise<ServerProcess> {
  return startListening([path.join(root, 'bin/chainq.js'), 'serve', '--data', dataDir, '--port', '0', '--log-level', 'warn', '--no-demo', ...extra]);
}

/** Runs `node <args>` and resolves once it prints "listening on <url>". */
export async function startListening(args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    process.stderr.write(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}${err}`)));
  });
  return {
    url,
    pid: child.pid!,
    child,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface Timing {
  readonly status: number;
  readonly bytes: number;
  readonly firstByteMs: number;
  readonly totalMs: number;
}

/** GETs a URL, reading and discarding the body, timing the first byte and the end. */
export function timedGet(url: string, headers: Record<string, string>): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    let bytes = 0;
    http
      .get(url, { headers }, (res) => {
        res.on('data', (c: Buffer) => {
          if (first < 0) first = performance.now() - t0;
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, firstByteMs: first, totalMs: performance.now() - t0 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Peak and current resident set size of a process, from /proc (Linux), in MiB. */
export function rssOf(pid: number): { peakMiB: number; nowMiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peakMiB: kb('VmHWM') / 1024, nowMiB: kb('VmRSS') / 1024 };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU time a process has used so far (all its threads), in ms, from /proc (Linux). */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
