/**
 * Running the real `chainq` command (bin/chainq.js) in a child process, as an
 * operator would: to completion, or watched line by line (its --log output is
 * one JSON object per line on stderr) so that a test can act at a given step.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(REPO_ROOT, 'bin', 'chainq.js');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The JSON log lines of stderr. */
  readonly logs: readonly Record<string, unknown>[];
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** The JSON log lines of stderr so far. */
  readonly logs: readonly Record<string, unknown>[];
  /** Resolves with the first log line that `match` accepts (rejects if the process ends first). */
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  readonly done: Promise<CliResult>;
}

export function spawnCli(args: readonly string[], env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, CHAINQ_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const logs: Record<string, unknown>[] = [];
  const waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr += `${line}\n`;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    logs.push(parsed);
    for (const w of [...waiters]) {
      if (w.match(parsed)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(parsed);
      }
    }
  });
  const done = new Promise<CliResult>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, logs }));
  });
  return {
    child,
    logs,
    done,
    waitFor(match, timeoutMs = 60_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms; stderr:\n${stderr.slice(-3000)}`)), timeoutMs);
        const w = {
          match,
          resolve: (l: Record<string, unknown>) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        waiters.push(w);
        void done.then((r) => {
          if (waiters.includes(w)) {
            clearTimeout(timer);
            reject(new Error(`chainq exited (${r.code ?? r.signal}) before the awaited log line; stderr:\n${r.stderr.slice(-3000)}`));
          }
        });
      });
    },
  };
}

export async function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return spawnCli(args, env).done;
}
