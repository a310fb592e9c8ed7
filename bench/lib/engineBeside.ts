/**
 * The engine alone beside a server under test (bench/lib/engineQuiet.mjs), on
 * a copy of the store (the server holds the store's lock), so that the two
 * are timed in turn, request by request, and meet the same moments of a noisy
 * machine.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One COPY the engine alone runs: the SQL the server plans, its values and COPY options. */
export interface EngineCopy {
  readonly sql: string;
  readonly params: unknown;
  readonly options: string;
}

export interface EngineBeside {
  /** Runs copy `index` once; its wall time and the bytes written. */
  run(index?: number): Promise<{ ms: number; bytes: number }>;
  stop(): void;
}

/** Copies the store of `dataDir` into `workDir` and starts the engine alone on it; outputs go to `outDir`. */
export async function engineBeside(root: string, workDir: string, dataDir: string, copies: readonly EngineCopy[], outDir: string): Promise<EngineBeside> {
  const copy = path.join(workDir, 'engine-copy.duckdb');
  fs.copyFileSync(path.join(dataDir, 'chainq.duckdb'), copy);
  if (fs.existsSync(path.join(dataDir, 'chainq.duckdb.wal'))) fs.copyFileSync(path.join(dataDir, 'chainq.duckdb.wal'), `${copy}.wal`);
  const spec = {
    db: copy,
    threads: Math.max(2, os.availableParallelism()),
    memoryLimit: '256MB',
    file: path.join(outDir, `chainq-engine-beside-${process.pid}.out`),
    copies,
  };
  const child = fork(path.join(root, 'bench/lib/engineQuiet.mjs'), [JSON.stringify(spec)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`engineQuiet exited with ${code}`)));
  });
  return {
    run: (index = 0) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as { ms: number; bytes: number }));
        child.send(index);
      }),
    stop: () => {
      if (child.connected) child.disconnect();
    },
  };
}
