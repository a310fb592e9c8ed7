/**
 * The embedded store: one DuckDB database under the data directory. Only this
 * folder imports @duckdb/node-api. Results meant for clients leave the engine
 * as encoded bytes (COPY to a named pipe), never as JS rows.
 */
import {
  DuckDBInstance, DuckDBTimestampValue, DuckDBTypeId, type DuckDBAppender, type DuckDBConnection, type DuckDBMaterializedResult, type DuckDBValue,
} from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { Format } from '../catalog/types.ts';
import { Semaphore } from '../utils/semaphore.ts';
import { createFifoMaker } from './fifoMaker.ts';
import { renderDuckDb } from './duckdb/render.ts';
import type { BoundQuery } from './query.ts';
import { SCHEMA_VERSION, schemaDdl } from './schema.ts';

export type SqlParams = Record<string, DuckDBValue>;
/** What `Tx.append` accepts for a column value. */
export type AppendValue = DuckDBValue | Date;
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
  /** Which engine answers (docs/storage.md); store functions with SQL of their own choose their dialect by it. */
  readonly engine: 'duckdb' | 'clickhouse';
  readonly dataDir: string | null;
  readonly readOnly: boolean;
  /**
   * The engine's text and parameter values for an engine-neutral data query
   * answered in `format`, to pass to `copyToStream`/`copyToFile` with that
   * format (an engine may shape its columns per format; DuckDB does not).
   */
  render(query: BoundQuery, format: Format): { sql: string; params: SqlParams };
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /** Runs `fn` inside one transaction on a dedicated connection. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  copyToStream(sql: string, params: SqlParams, format: Format): Promise<CopyStream>;
  copyToFile(sql: string, params: SqlParams, format: Format, file: string): Promise<number>;
  /**
   * A read-only view of the store as of now, on its own connection inside one
   * transaction: every read through it (lookups, coverage checks, the export)
   * sees the same committed state, whatever ingestion commits meanwhile. Its
   * `close()` ends it; it cannot write.
   */
  snapshot(): Promise<Store>;
  close(): Promise<void>;
}

export interface Tx {
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /**
   * Appends rows to a table through DuckDB's appender (columns in table order).
   * Values of the column's own JS type take a typed fast path (a bigint fills
   * a BIGNUM, a Date a TIMESTAMP); others are cast by DuckDB (a decimal string
   * fills a BIGNUM, 'YYYY-MM-DD HH:MM:SS' a TIMESTAMP).
   */
  append(table: string, rows: readonly (readonly AppendValue[])[]): Promise<void>;
}

export class StoreLockedError extends Error {
  constructor(file: string, holder?: string) {
    super(`the store ${file} is open in another chainq process${holder ? ` (${holder})` : ''} — a running server or ingest? Stop it first, or use another --data directory.`);
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
  // The fifo helper is a child process: started before the database file is
  // opened, so that it cannot inherit the file's descriptor (and its lock) and
  // keep the store locked after this process has closed it.
  const fifos = createFifoMaker();
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, config);
  } catch (e) {
    fifos.close();
    const message = String((e as Error).message);
    if (/lock/i.test(message)) throw new StoreLockedError(file, /PID \d+/.exec(message)?.[0]);
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
    engine: 'duckdb',
    dataDir: opts.dataDir,
    readOnly,
    render: renderDuckDb,
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
              const writers = columnWriters(appender);
              for (const row of rows) {
                for (let i = 0; i < writers.length; i++) {
                  const v = row[i];
                  if (v === null || v === undefined) appender.appendNull();
                  else writers[i]!(v);
                }
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

    copyToStream: (sql, params, format) => copyToStream(sql, params, format, null),

    async copyToFile(sql, params, format, file) {
      const conn = await instance.connect();
      try {
        return await copyToFileOn(conn, sql, params, format, file);
      } finally {
        conn.closeSync();
      }
    },

    async snapshot() {
      const conn = await instance.connect();
      await conn.run('BEGIN TRANSACTION');
      // DuckDB starts a transaction's view of the database at its first read, not at BEGIN: read now.
      await conn.run('SELECT count(*) FROM schema_version');
      let ended: Promise<void> | null = null;
      const view: Store = {
        engine: 'duckdb',
        dataDir: opts.dataDir,
        readOnly: true,
        render: renderDuckDb,
        all: (sql, params) => all(conn, sql, params),
        run: () => Promise.reject(new Error('a snapshot is read-only')),
        transaction: () => Promise.reject(new Error('a snapshot is read-only')),
        copyToStream: (sql, params, format) => copyToStream(sql, params, format, conn),
        copyToFile: (sql, params, format, file) => copyToFileOn(conn, sql, params, format, file),
        snapshot: () => Promise.resolve(view),
        close: () => (ended ??= conn.run('COMMIT').then(() => undefined, () => undefined).finally(() => conn.closeSync())),
      };
      return view;
    },

    async close() {
      shared.closeSync();
      instance.closeSync();
      fifos.close();
      fs.rmSync(fifoDir, { recursive: true, force: true });
    },
  };

  /** Streams a query's encoded result; on `shared` (a snapshot's connection, left open) or on a connection of its own. */
  async function copyToStream(sql: string, params: SqlParams, format: Format, onConn: DuckDBConnection | null): Promise<CopyStream> {
    const release = await exports.acquire();
    const fifo = path.join(fifoDir, randomBytes(12).toString('hex'));
    let conn: DuckDBConnection | undefined;
    let socket: net.Socket | undefined;
    try {
      await fifos.make(fifo);
      // The read end is opened first and non-blocking, and read through the
      // event loop (epoll) rather than the thread pool: a slow client then
      // holds no libuv thread, and the engine's open-for-write never waits.
      // Linux reports hang-up on a FIFO only after a writer has come and
      // gone, so the reader simply waits until the engine opens the pipe.
      const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      socket = new net.Socket({ fd, readable: true, writable: false });
      conn = onConn ?? await instance.connect();
    } catch (e) {
      socket?.destroy();
      fs.rm(fifo, { force: true }, () => undefined);
      release();
      throw e;
    }
    const connection = conn;
    const source = socket;
    // The fifo path is ours, never user text; the user's values are bound parameters.
    const done = connection.run(`COPY (${sql}) TO '${fifo}' ${copyOptions(format)}`, params).then(rowCount);
    // The body ends only once the engine has reported success, so that a
    // failure after the pipe closed can never pass for a complete result.
    const stream = new PassThrough({ highWaterMark: 256 * 1024 });
    source.pipe(stream, { end: false });
    source.on('end', () => {
      done.then(() => stream.end(), (e: unknown) => stream.destroy(asError(e)));
    });
    source.on('error', (e) => stream.destroy(e));
    done.catch((e: unknown) => {
      stream.destroy(asError(e));
      source.destroy();
    });
    // Failures reach the caller through `done`; a stream error must never be unhandled.
    stream.on('error', () => undefined);
    let released = false;
    const finish = () => {
      if (released) return;
      released = true;
      source.destroy();
      fs.rm(fifo, { force: true }, () => undefined);
      release();
    };
    stream.on('close', () => {
      // Closing the connection before the query settles would abort it mid-write; a snapshot closes its own.
      if (!onConn) done.finally(() => connection.closeSync()).catch(() => undefined);
      finish();
    });
    return {
      stream,
      done,
      cancel() {
        connection.interrupt();
        stream.destroy();
      },
    };
  }
  return store;
}

async function copyToFileOn(conn: DuckDBConnection, sql: string, params: SqlParams, format: Format, file: string): Promise<number> {
  const r = await conn.run(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' ${copyOptions(format)}`, params);
  return rowCount(r);
}

/** COPY answers one row holding the number of rows it wrote. */
async function rowCount(result: DuckDBMaterializedResult): Promise<number> {
  const rows = await result.getRows();
  return Number(rows[0]?.[0] ?? 0);
}

type ColumnWriter = (v: Exclude<AppendValue, null>) => void;

/**
 * One typed writer per column. The generic appendValue infers a type per value
 * and casts, which is ~10x slower than the typed appends at ingestion volumes.
 * A value of another JS type than the column's takes the generic path, as before.
 */
function columnWriters(a: DuckDBAppender): ColumnWriter[] {
  const out: ColumnWriter[] = [];
  for (let i = 0; i < a.columnCount; i++) {
    const generic: ColumnWriter = (v) => a.appendValue(v instanceof Date ? new DuckDBTimestampValue(BigInt(v.getTime()) * 1000n) : v);
    const typed = <T,>(test: (v: unknown) => v is T, write: (v: T) => void): ColumnWriter => (v) => (test(v) ? write(v) : generic(v));
    const isString = (v: unknown): v is string => typeof v === 'string';
    const isNumber = (v: unknown): v is number => typeof v === 'number';
    const isInt = (v: unknown): v is bigint | number => typeof v === 'bigint' || Number.isSafeInteger(v);
    const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
    switch (a.columnType(i).typeId) {
      case DuckDBTypeId.VARCHAR: out.push(typed(isString, (v) => a.appendVarchar(v))); break;
      case DuckDBTypeId.BIGINT: out.push(typed(isInt, (v) => a.appendBigInt(BigInt(v)))); break;
      case DuckDBTypeId.UBIGINT: out.push(typed(isInt, (v) => a.appendUBigInt(BigInt(v)))); break;
      case DuckDBTypeId.INTEGER: out.push(typed(isNumber, (v) => a.appendInteger(v))); break;
      case DuckDBTypeId.UTINYINT: out.push(typed(isNumber, (v) => a.appendUTinyInt(v))); break;
      case DuckDBTypeId.DOUBLE: out.push(typed(isNumber, (v) => a.appendDouble(v))); break;
      case DuckDBTypeId.BOOLEAN: out.push(typed(isBool, (v) => a.appendBoolean(v))); break;
      case DuckDBTypeId.BIGNUM: out.push(typed(isInt, (v) => a.appendBigNum(BigInt(v)))); break;
      case DuckDBTypeId.TIMESTAMP:
        out.push((v) => {
          if (v instanceof Date) a.appendTimestamp(new DuckDBTimestampValue(BigInt(v.getTime()) * 1000n));
          else generic(v);
        });
        break;
      default: out.push(generic);
    }
  }
  return out;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
