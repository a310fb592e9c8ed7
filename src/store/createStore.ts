/**
 * The embedded store: one DuckDB database under the data directory. Only this
 * folder imports @duckdb/node-api. Results meant for clients leave the engine
 * as encoded bytes (COPY to a named pipe), never as JS rows.
 */
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection, type DuckDBMaterializedResult, type DuckDBValue } from '@duckdb/node-api';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { Format } from '../catalog/types.ts';
import { Semaphore } from '../utils/semaphore.ts';
import { SCHEMA_VERSION, schemaDdl } from './schema.ts';

const execFileAsync = promisify(execFile);

export type SqlParams = Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

export interface StoreOptions {
  /** Directory holding chainq.duckdb; null for an in-memory store (tests). */
  readonly dataDir: string | null;
  readonly readOnly?: boolean;
  readonly threads?: number;
  /** DuckDB memory_limit, e.g. '512MB'. */
  readonly memoryLimit?: string;
  /** Streamed exports running at once; more wait their turn. */
  readonly maxConcurrentExports?: number;
}

export interface CopyStream {
  /** The encoded bytes, readable once the engine produces them. */
  readonly stream: Readable;
  /** Resolves with the number of rows written when the engine is done. */
  readonly done: Promise<number>;
  /** Stops the query and releases everything. */
  cancel(): void;
}

export interface Store {
  readonly dataDir: string | null;
  readonly readOnly: boolean;
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /** Runs `fn` inside one transaction on a dedicated connection. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  copyToStream(sql: string, params: SqlParams, format: Format): Promise<CopyStream>;
  copyToFile(sql: string, params: SqlParams, format: Format, file: string): Promise<number>;
  close(): Promise<void>;
}

export interface Tx {
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /** Appends rows to a table through DuckDB's appender (columns in table order). */
  append(table: string, rows: readonly (readonly DuckDBValue[])[]): Promise<void>;
}

export class StoreLockedError extends Error {
  constructor(file: string) {
    super(`the store ${file} is open in another chainq process (a running server or ingest). Stop it first, or use another --data directory.`);
    this.name = 'StoreLockedError';
  }
}

export function copyOptions(format: Format): string {
  switch (format) {
    case 'csv': return `(FORMAT csv, HEADER true)`;
    case 'parquet': return `(FORMAT parquet, COMPRESSION zstd)`;
    case 'json': return `(FORMAT json)`;
  }
}

export async function createStore(opts: StoreOptions): Promise<Store> {
  const file = opts.dataDir === null ? ':memory:' : path.join(opts.dataDir, 'chainq.duckdb');
  if (opts.dataDir !== null) fs.mkdirSync(opts.dataDir, { recursive: true });
  const readOnly = opts.readOnly ?? false;
  const config: Record<string, string> = { threads: String(opts.threads ?? Math.max(2, os.availableParallelism())) };
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (readOnly) config.access_mode = 'READ_ONLY';
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, config);
  } catch (e) {
    if (/lock/i.test(String((e as Error).message))) throw new StoreLockedError(file);
    throw e;
  }
  const shared = await instance.connect();
  const exports = new Semaphore(opts.maxConcurrentExports ?? 8);
  const fifoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-'));

  const all = async <T,>(conn: DuckDBConnection, sql: string, params?: SqlParams): Promise<T[]> => {
    const reader = await conn.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  };

  if (!readOnly) {
    for (const ddl of schemaDdl()) await shared.run(ddl);
    const v = await all<{ version: number }>(shared, 'SELECT version FROM schema_version');
    if (v.length === 0) await shared.run('INSERT INTO schema_version VALUES ($v)', { v: SCHEMA_VERSION });
  }

  const store: Store = {
    dataDir: opts.dataDir,
    readOnly,
    all: (sql, params) => all(shared, sql, params),
    run: async (sql, params) => { await shared.run(sql, params); },

    async transaction(fn) {
      const conn = await instance.connect();
      try {
        await conn.run('BEGIN TRANSACTION');
        const tx: Tx = {
          all: (sql, params) => all(conn, sql, params),
          run: async (sql, params) => { await conn.run(sql, params); },
          async append(table, rows) {
            const appender = await conn.createAppender(table);
            try {
              for (const row of rows) {
                for (const v of row) appendValue(appender, v);
                appender.endRow();
              }
              appender.flushSync();
            } finally {
              appender.closeSync();
            }
          },
        };
        const out = await fn(tx);
        await conn.run('COMMIT');
        return out;
      } catch (e) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        conn.closeSync();
      }
    },

    async copyToStream(sql, params, format) {
      const release = await exports.acquire();
      const conn = await instance.connect();
      const fifo = path.join(fifoDir, randomBytes(12).toString('hex'));
      await execFileAsync('mkfifo', ['-m', '600', fifo]);
      // The fifo path is ours, never user text; the user's values are bound parameters.
      const copy = conn.run(`COPY (${sql}) TO '${fifo}' ${copyOptions(format)}`, params);
      let finished = false;
      const cleanup = () => {
        if (finished) return;
        finished = true;
        fs.rm(fifo, { force: true }, () => undefined);
        release();
      };
      const stream = fs.createReadStream(fifo, { highWaterMark: 256 * 1024 });
      // Failures reach the caller through `done`; a stream error must never be unhandled.
      stream.on('error', () => undefined);
      const done = copy.then(
        (r) => rowCount(r),
        async (e: unknown) => {
          // The engine failed before or while writing: make sure the reader is not
          // left waiting for a writer that will never open the pipe.
          await unblockReader(fifo);
          stream.destroy(e instanceof Error ? e : new Error(String(e)));
          throw e;
        },
      );
      done.catch(() => undefined);
      stream.on('close', () => {
        // The reader can see end-of-file before the engine's COPY call has
        // returned; closing the connection under a running call orphans it
        // (its promise never settles and the instance cannot close), so the
        // connection is closed once the call is over.
        void done.catch(() => undefined).finally(() => conn.closeSync());
        cleanup();
      });
      done.finally(cleanup).catch(() => undefined);
      return {
        stream,
        done,
        cancel() {
          conn.interrupt();
          stream.destroy();
          void unblockReader(fifo);
        },
      };
    },

    async copyToFile(sql, params, format, file) {
      const conn = await instance.connect();
      try {
        const r = await conn.run(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' ${copyOptions(format)}`, params);
        return await rowCount(r);
      } finally {
        conn.closeSync();
      }
    },

    async close() {
      shared.closeSync();
      instance.closeSync();
      fs.rmSync(fifoDir, { recursive: true, force: true });
    },
  };
  return store;
}

/** COPY answers one row holding the number of rows it wrote. */
async function rowCount(result: DuckDBMaterializedResult): Promise<number> {
  const rows = await result.getRows();
  return Number(rows[0]?.[0] ?? 0);
}

function appendValue(appender: DuckDBAppender, v: DuckDBValue): void {
  // The appender casts to the column's type, so a decimal string fills a BIGNUM.
  if (v === null || v === undefined) appender.appendNull();
  else appender.appendValue(v);
}

/** Opens the write end once and closes it, so a blocked reader sees end-of-file. */
async function unblockReader(fifo: string): Promise<void> {
  try {
    const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.closeSync(fd);
  } catch {
    // No reader is waiting (ENXIO) or the pipe is gone: nothing to unblock.
  }
}
