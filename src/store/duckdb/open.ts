/**
 * Opening the DuckDB file: its settings, and the fifo helper that exports
 * stream through, started first.
 */
import type { DuckDBInstance as Instance } from '@duckdb/node-api';
import { DuckDBInstance } from './nodeApi.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFifoMaker, type FifoMaker } from '../fifoMaker.ts';

export class StoreLockedError extends Error {
  constructor(file: string, holder?: string) {
    super(`the store ${file} is open in another chainq process${holder ? ` (${holder})` : ''} — a running server or ingest? Stop it first, or use another --data directory.`);
    this.name = 'StoreLockedError';
  }
}

export interface OpenedInstance {
  readonly instance: Instance;
  readonly fifos: FifoMaker;
  readonly fifoDir: string;
  readonly threads: number;
}

export async function openInstance(opts: { dataDir: string | null; readOnly: boolean; threads?: number | undefined; memoryLimit?: string | undefined }): Promise<OpenedInstance> {
  const file = opts.dataDir === null ? ':memory:' : path.join(opts.dataDir, 'chainq.duckdb');
  if (opts.dataDir !== null) fs.mkdirSync(opts.dataDir, { recursive: true });
  const threads = opts.threads ?? Math.max(2, os.availableParallelism());
  const config: Record<string, string> = { threads: String(threads) };
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (opts.readOnly) config.access_mode = 'READ_ONLY';
  // The fifo helper is a child process: started before the database file is
  // opened, so that it cannot inherit the file's descriptor (and its lock) and
  // keep the store locked after this process has closed it.
  const fifoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-'));
  const fifos = createFifoMaker(fifoDir);
  try {
    return { instance: await DuckDBInstance.create(file, config), fifos, fifoDir, threads };
  } catch (e) {
    await fifos.close();
    fs.rmSync(fifoDir, { recursive: true, force: true, maxRetries: 3 });
    const message = e instanceof Error ? e.message : String(e);
    if (/lock/i.test(message)) throw new StoreLockedError(file, /PID \d+/.exec(message)?.[0]);
    throw e;
  }
}
