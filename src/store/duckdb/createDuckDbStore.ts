/**
 * The embedded store: one DuckDB database under the data directory. Only
 * src/store/ imports @duckdb/node-api. Results meant for clients leave the engine
 * as encoded bytes (COPY to a named pipe), never as JS rows.
 */
import { DuckDBInstance, DuckDBTimestampValue, listValue, DuckDBTypeId, type DuckDBAppender, type DuckDBConnection, type DuckDBMaterializedResult } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import type { Format } from '../../catalog/types.ts';
import { createLookupCache } from '../lookupCache.ts';
import { createExportLanes, defaultLaneLimits, type ExportLane, type ExportLaneLimits } from '../exportLanes.ts';
import { createFifoMaker, createFifoPool } from '../fifoMaker.ts';
import { type OnePiece, onePieceStream, readOnePiece } from './onePiece.ts';
import { createDirectLedger, createJournalLedger, recoverJournal, type ApplyCharges } from './chargeLedger.ts';
import { runKept } from './keptStatements.ts';
import type { ChargeLedger } from '../ledger.ts';
import { renderDuckDb } from './render.ts';
import { duckDbKeys } from './keys.ts';
import { duckDbLabelNamespaces } from './labelNamespaces.ts';
import { duckDbUsage } from './usage.ts';
import { duckDbChainWrites } from './chainWrites.ts';
import { duckDbReference } from './reference.ts';
import { duckDbExports } from './exports.ts';
import { SCHEMA_VERSION, schemaDdl } from '../schema.ts';
import type { AppendValue, CopyStream, ExportOptions, ResultColumn, SqlParams, Store, Tx } from '../types.ts';
import { repairBignumZeros } from './repairBignumZeros.ts';
import { copyDatabaseFile } from './copyOf.ts';

export interface DuckDbStoreOptions {
  /** Directory holding chainq.duckdb; null for an in-memory store (tests). */
  readonly dataDir: string | null;
  readonly readOnly?: boolean;
  readonly threads?: number;
  /** DuckDB memory_limit, e.g. '512MB'. */
  readonly memoryLimit?: string;
  /**
   * Exports running at once, per lane (src/store/exportLanes.ts); more wait
   * their turn. Default: 8 light, one heavy per engine thread.
   */
  readonly exportLanes?: ExportLaneLimits;
  /** High-water mark of a streamed export's buffer, in bytes (a server derives it from its memory bound). */
  readonly streamBufferBytes?: number;
  /** In memory only: start as a copy of this DuckDB database file (./copyOf.ts). */
  readonly copyOf?: string;
}

export class StoreLockedError extends Error {
  constructor(file: string, holder?: string) {
    super(`the store ${file} is open in another chainq process${holder ? ` (${holder})` : ''} — a running server or ingest? Stop it first, or use another --data directory.`);
    this.name = 'StoreLockedError';
  }
}

/** A streamed export's buffer when the opener sets none. */
const DEFAULT_STREAM_BUFFER = 256 * 1024;

/** Connections of ended views kept for later views: the light and heavy lanes' worth on a small machine. */
const IDLE_VIEW_CONNS = 16;
/** How long a view opened ahead of the next request is kept unused (see `takeView`). */
const WARM_VIEW_MS = 1000;

export function copyOptions(format: Format): string {
  switch (format) {
    case 'csv':
      return `(FORMAT csv, HEADER true)`;
    case 'parquet':
      return `(FORMAT parquet, COMPRESSION zstd)`;
    case 'json':
      return `(FORMAT json)`;
  }
}

export async function createDuckDbStore(opts: DuckDbStoreOptions): Promise<Store> {
  if (opts.copyOf !== undefined && opts.dataDir !== null) throw new Error('copyOf opens an in-memory store (dataDir: null)');
  const file = opts.dataDir === null ? ':memory:' : path.join(opts.dataDir, 'chainq.duckdb');
  if (opts.dataDir !== null) fs.mkdirSync(opts.dataDir, { recursive: true });
  const readOnly = opts.readOnly ?? false;
  const streamBufferBytes = opts.streamBufferBytes ?? DEFAULT_STREAM_BUFFER;
  const threads = opts.threads ?? Math.max(2, os.availableParallelism());
  const config: Record<string, string> = { threads: String(threads) };
  if (opts.memoryLimit) config.memory_limit = opts.memoryLimit;
  if (readOnly) config.access_mode = 'READ_ONLY';
  // The fifo helper is a child process: started before the database file is
  // opened, so that it cannot inherit the file's descriptor (and its lock) and
  // keep the store locked after this process has closed it.
  const fifoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-'));
  const fifos = createFifoMaker(fifoDir);
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, config);
  } catch (e) {
    await fifos.close();
    fs.rmSync(fifoDir, { recursive: true, force: true, maxRetries: 3 });
    const message = String((e as Error).message);
    if (/lock/i.test(message)) throw new StoreLockedError(file, /PID \d+/.exec(message)?.[0]);
    throw e;
  }
  const shared = await instance.connect();
  const lanes = createExportLanes(opts.exportLanes ?? defaultLaneLimits(threads));
  // Writes through this store are the only writes to its file (one process owns it), so
  // counting them tells when a cached lookup still holds (src/store/lookupCache.ts).
  const lookups = createLookupCache();
  let version = 0;
  let writers = 0;
  let warm: { readonly view: OpenView; readonly expiry: NodeJS.Timeout } | null = null;
  let warming: Promise<void> | null = null;
  /** Connections of ended views, kept for the next ones (see `endView`). */
  const idleViewConns: DuckDBConnection[] = [];
  let storeClosed = false;
  const writing = async <T>(write: () => Promise<T>): Promise<T> => {
    dropWarmView();
    writers++;
    version++;
    try {
      return await write();
    } finally {
      writers--;
      version++;
    }
  };
  /** A lookup at the current version, kept only if no write began or ended while it ran. */
  const lookupNow = <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    if (writers > 0) return compute();
    const v = version;
    return lookups.get(v, key, compute, () => writers === 0 && version === v);
  };
  const fifoPool = createFifoPool(fifos, fifoDir);
  /** Exports whose COPY into a fifo has not settled: close() stops them before it removes their folder. */
  const running = new Set<{ readonly cancel: () => void; readonly stopped: Promise<void> }>();

  const all = async <T>(conn: DuckDBConnection, sql: string, params?: SqlParams): Promise<T[]> => {
    const reader = await conn.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  };

  if (opts.copyOf !== undefined) {
    await copyDatabaseFile(shared, opts.copyOf);
  }
  if (!readOnly) {
    for (const ddl of schemaDdl()) await shared.run(ddl);
    const v = await all<{ version: number }>(shared, 'SELECT version FROM schema_version');
    if (v.length === 0) await shared.run('INSERT INTO schema_version VALUES ($v)', { v: SCHEMA_VERSION });
    await repairBignumZeros(shared);
  }

  /**
   * Charges into `usage_charges` as one INSERT the engine runs from column
   * lists, on a connection kept for the ledger (its applies run one at a
   * time): one statement is one transaction, and nothing runs on the event
   * loop, where an appender's flush and a connection's close are synchronous.
   * With `skipKnown`, charges whose request id the table holds are left out.
   */
  let ledgerConn: DuckDBConnection | undefined;
  const applyCharges: ApplyCharges = async (charges, skipKnown) => {
    if (charges.length === 0) return;
    ledgerConn ??= await instance.connect();
    await ledgerConn.run(
      `INSERT INTO usage_charges (key_id, period, request_id, cost, admitted_at, charged_at, endpoint)
       SELECT key_id, period, request_id, cost::BIGINT, epoch_ms(admitted_ms::BIGINT), epoch_ms(charged_ms::BIGINT), endpoint
       FROM (SELECT unnest($keys) AS key_id, unnest($periods) AS period, unnest($ids) AS request_id, unnest($costs) AS cost,
                    unnest($admitted) AS admitted_ms, unnest($charged) AS charged_ms, unnest($endpoints) AS endpoint)
       WHERE NOT $skip_known OR request_id NOT IN (SELECT request_id FROM usage_charges)`,
      {
        keys: listValue(charges.map((c) => c.keyId)),
        periods: listValue(charges.map((c) => c.period)),
        ids: listValue(charges.map((c) => c.requestId)),
        // Numbers would bind as INTEGER lists; BigInts bind as HUGEINT, cast back above.
        costs: listValue(charges.map((c) => BigInt(c.cost))),
        admitted: listValue(charges.map((c) => BigInt(c.admittedAt))),
        charged: listValue(charges.map((c) => BigInt(c.chargedAt))),
        endpoints: listValue(charges.map((c) => c.endpoint)),
        skip_known: skipKnown,
      },
    );
  };
  let ledger: ChargeLedger | undefined;
  if (!readOnly && opts.dataDir) {
    await recoverJournal(opts.dataDir, applyCharges);
    ledger = createJournalLedger(opts.dataDir, applyCharges);
  } else if (!readOnly) ledger = createDirectLedger(applyCharges);

  const statements: Pick<Store, 'all' | 'run' | 'transaction'> = {
    all: (sql, params) => all(shared, sql, params),
    run: (sql, params) =>
      writing(async () => {
        await shared.run(sql, params);
      }),
    transaction: (fn) => writing(() => inTransaction(fn)),
  };
  const store: Store = {
    engine: 'duckdb',
    ...(ledger ? { ledger } : {}),
    dataDir: opts.dataDir,
    readOnly,
    render: renderDuckDb,
    ...statements,
    lookup: lookupNow,
    keys: duckDbKeys(statements),
    usage: duckDbUsage(statements, () => ledger),
    chain: duckDbChainWrites(statements),
    labelNamespaces: duckDbLabelNamespaces(statements),
    reference: duckDbReference(statements),
    exports: duckDbExports(statements, (sql, params) => describeOn(shared, sql, params)),
    copyToStream: (sql, params, format, o) => copyToStream(sql, params, format, null, o),

    async copyToFile(sql, params, format, file, o) {
      const conn = await instance.connect();
      try {
        return await copyToFileOn(conn, sql, params, format, file, o?.lane ?? 'light');
      } finally {
        conn.closeSync();
      }
    },

    async snapshot() {
      const { conn, version: seen, exact } = await takeView();
      let ended: Promise<void> | null = null;
      const viewStatements: Pick<Store, 'all' | 'run' | 'transaction'> = {
        // Planning's lookups on this view's connection reuse the statements kept on it: one engine trip each, no preparation.
        all: async <T>(sql: string, params?: SqlParams) => (await (await runKept(conn, sql, params)).getRowObjectsJS()) as T[],
        run: () => Promise.reject(new Error('a snapshot is read-only')),
        transaction: () => Promise.reject(new Error('a snapshot is read-only')),
      };
      const view: Store = {
        engine: 'duckdb',
        dataDir: opts.dataDir,
        readOnly: true,
        render: renderDuckDb,
        ...viewStatements,
        keys: duckDbKeys(viewStatements),
        usage: duckDbUsage(viewStatements, () => undefined),
        chain: duckDbChainWrites(viewStatements),
        labelNamespaces: duckDbLabelNamespaces(viewStatements),
        reference: duckDbReference(viewStatements),
        exports: duckDbExports(viewStatements, (sql, params) => describeOn(conn, sql, params)),
        copyToStream: (sql, params, format, o) => copyToStream(sql, params, format, conn, o),
        copyToFile: (sql, params, format, file, o) => copyToFileOn(conn, sql, params, format, file, o?.lane ?? 'light'),
        snapshot: () => Promise.resolve(view),
        lookup: <T>(key: string, compute: () => Promise<T>): Promise<T> => (exact ? lookups.get(seen, key, compute, () => true) : compute()),
        close: () => (ended ??= endView(conn)),
      };
      return view;
    },

    async close() {
      storeClosed = true;
      await warming;
      dropWarmView();
      // Charges the table could not take stay durable in the journal and are applied at the next opening.
      await ledger?.close().catch(() => undefined);
      for (const e of running) e.cancel();
      await Promise.all([...running].map((e) => e.stopped));
      for (const conn of idleViewConns.splice(0)) conn.closeSync();
      ledgerConn?.closeSync();
      shared.closeSync();
      instance.closeSync();
      await fifos.close();
      fs.rmSync(fifoDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };

  /** A read transaction whose view is fixed; `exact` when that view is store version `version` (no write in progress, begun or ended meanwhile). */
  interface OpenView {
    readonly conn: DuckDBConnection;
    readonly version: number;
    readonly exact: boolean;
  }
  async function openView(): Promise<OpenView> {
    const before = { version, writers };
    const conn = idleViewConns.pop() ?? (await instance.connect());
    try {
      // DuckDB starts a transaction's view of the database at its first read, not at BEGIN: read in the same call.
      await conn.run('BEGIN TRANSACTION; SELECT count(*) FROM schema_version');
    } catch (e) {
      conn.closeSync();
      throw e;
    }
    return { conn, version: before.version, exact: before.writers === 0 && writers === 0 && version === before.version };
  }
  /**
   * Ends a view; its connection, cleanly committed, serves a later view. Under
   * load, opening a view on a new connection took 3.8-5.6 ms at the median and
   * 0.7 ms on a kept one (README "Performance"); a connection whose query
   * failed or was interrupted is closed instead.
   */
  function endView(conn: DuckDBConnection): Promise<void> {
    return conn
      .run('COMMIT')
      .then(
        () => {
          if (!storeClosed && idleViewConns.length < IDLE_VIEW_CONNS) idleViewConns.push(conn);
          else conn.closeSync();
        },
        () => conn.closeSync(),
      )
      .catch(() => undefined);
  }
  /**
   * The next request's view, opened ahead of it: opening one (connection,
   * BEGIN, first read) took 0.8-1.4 ms of each small query's path (README
   * "Performance"). It is handed out only while no write has begun or ended
   * since it was opened, so it is exactly what a view opened now would see.
   * Unused for WARM_VIEW_MS it is dropped, so that an idle server holds no
   * transaction open (an open transaction keeps DuckDB from checkpointing).
   */
  function takeView(): Promise<OpenView> {
    const w = warm;
    if (w && w.view.version === version && writers === 0) {
      clearTimeout(w.expiry);
      warm = null;
      warmUp();
      return Promise.resolve(w.view);
    }
    dropWarmView();
    const opened = openView();
    opened.then(warmUp, () => undefined);
    return opened;
  }
  function warmUp(): void {
    if (warming || warm || storeClosed) return;
    warming = openView().then(
      (v) => {
        warming = null;
        if (storeClosed || warm || !v.exact || v.version !== version || writers > 0) {
          void endView(v.conn);
          return;
        }
        const expiry = setTimeout(dropWarmView, WARM_VIEW_MS);
        expiry.unref();
        warm = { view: v, expiry };
      },
      () => {
        warming = null;
      },
    );
  }
  function dropWarmView(): void {
    if (!warm) return;
    clearTimeout(warm.expiry);
    void endView(warm.view.conn);
    warm = null;
  }

  /** One transaction on a dedicated connection, its appender writes typed (see `Tx.append`). */
  async function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const conn = await instance.connect();
    try {
      await conn.run('BEGIN TRANSACTION');
      const tx: Tx = {
        all: (sql, params) => all(conn, sql, params),
        run: async (sql, params) => {
          await conn.run(sql, params);
        },
        async append(table, rows) {
          const appender = await conn.createAppender(table);
          try {
            const write = columnWriters(appender);
            for (const row of rows) {
              for (let i = 0; i < write.length; i++) {
                const v = row[i];
                if (v === null || v === undefined) appender.appendNull();
                else write[i]!(v);
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
  }

  /** Streams a query's encoded result; on `onConn` (a snapshot's connection, left open) or on a connection of its own. */
  async function copyToStream(sql: string, params: SqlParams, format: Format, onConn: DuckDBConnection | null, o: ExportOptions | undefined): Promise<CopyStream> {
    const release = await lanes.acquire(o?.lane ?? 'light');
    if (o?.small && format === 'json') {
      let piece: OnePiece | null;
      try {
        piece = await readOnePiece(onConn ?? (await instance.connect()), sql, params, !onConn);
      } catch (e) {
        release();
        throw e;
      }
      if (piece) {
        release();
        return onePieceStream(piece);
      }
      // More rows than one piece takes: the same query streams through a fifo after all.
    }
    return copyThroughFifo(sql, params, format, onConn, release);
  }

  /** Streams a query's encoded result through a fifo the engine's COPY writes; `release` frees its lane. */
  async function copyThroughFifo(sql: string, params: SqlParams, format: Format, onConn: DuckDBConnection | null, release: () => void): Promise<CopyStream> {
    let fifo: string | undefined;
    let conn: DuckDBConnection | undefined;
    let socket: net.Socket | undefined;
    try {
      fifo = await fifoPool.take();
      // The read end is opened first and non-blocking, and read through the
      // event loop (epoll) rather than the thread pool: a slow client then
      // holds no libuv thread, and the engine's open-for-write never waits.
      // Linux reports hang-up on a FIFO only after a writer has come and
      // gone, so the reader simply waits until the engine opens the pipe.
      const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      socket = new net.Socket({ fd, readable: true, writable: false });
      conn = onConn ?? (await instance.connect());
    } catch (e) {
      socket?.destroy();
      if (fifo) fs.unlink(fifo, () => undefined);
      release();
      throw e;
    }
    const fifoPath = fifo;
    const connection = conn;
    const source = socket;
    // The fifo path is ours, never user text; the user's values are bound parameters.
    const done = connection.run(`COPY (${sql}) TO '${fifoPath}' ${copyOptions(format)}`, params).then(rowCount);
    // The body ends only once the engine has reported success, so that a
    // failure after the pipe closed can never pass for a complete result.
    const stream = new PassThrough({ highWaterMark: streamBufferBytes });
    source.pipe(stream, { end: false });
    source.on('end', () => {
      done.then(
        () => stream.end(),
        (e: unknown) => stream.destroy(asError(e)),
      );
    });
    source.on('error', (e) => stream.destroy(e));
    done.catch((e: unknown) => {
      stream.destroy(asError(e));
      source.destroy();
    });
    // Failures reach the caller through `done`; a stream error must never be unhandled.
    stream.on('error', () => undefined);
    const cancel = () => {
      connection.interrupt();
      stream.destroy();
    };
    /** The COPY has settled, whichever way. */
    let settled = false;
    const exporting = {
      cancel,
      stopped: done
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          settled = true;
          running.delete(exporting);
        }),
    };
    running.add(exporting);
    let released = false;
    const finish = () => {
      if (released) return;
      released = true;
      // A body given up before the COPY settled (a client that left): until it settles, the fifo stays
      // and is read to nothing, and the engine is told to stop again and again. An interrupt that comes
      // before the engine has begun the query is lost, and a COPY that opens the fifo after it was
      // removed writes the whole result into a regular file at its path (or, were it only closed,
      // waits for a reader forever).
      source.unpipe(stream);
      source.on('data', () => undefined);
      source.resume();
      const stopping = settled ? undefined : setInterval(() => connection.interrupt(), 20);
      void exporting.stopped.then(() => {
        clearInterval(stopping);
        source.destroy();
        // unlink, not rm: rm stats the path twice before unlinking it, on every response.
        fs.unlink(fifoPath, () => undefined);
        release();
      });
    };
    stream.on('close', () => {
      // Closing the connection before the query settles would abort it mid-write; a snapshot closes its own.
      if (!onConn) done.finally(() => connection.closeSync()).catch(() => undefined);
      finish();
    });
    return { stream, done, cancel };
  }
  /** A file export (a download link's artifact) waits in its lane as a streamed one does. */
  async function copyToFileOn(conn: DuckDBConnection, sql: string, params: SqlParams, format: Format, file: string, lane: ExportLane): Promise<number> {
    const release = await lanes.acquire(lane);
    try {
      const r = await conn.run(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' ${copyOptions(format)}`, params);
      return await rowCount(r);
    } finally {
      release();
    }
  }
  return store;
}

/** The columns a query answers, read from its empty result. */
async function describeOn(conn: DuckDBConnection, sql: string, params: SqlParams): Promise<ResultColumn[]> {
  const r = await conn.run(`SELECT * FROM (${sql}) LIMIT 0`, params);
  const types = r.columnTypes();
  return r.columnNames().map((name, i) => ({ name, type: String(types[i]) }));
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
    const typed =
      <T>(test: (v: unknown) => v is T, write: (v: T) => void): ColumnWriter =>
      (v) =>
        test(v) ? write(v) : generic(v);
    const isString = (v: unknown): v is string => typeof v === 'string';
    const isNumber = (v: unknown): v is number => typeof v === 'number';
    const isInt = (v: unknown): v is bigint | number => typeof v === 'bigint' || Number.isSafeInteger(v);
    const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
    switch (a.columnType(i).typeId) {
      case DuckDBTypeId.VARCHAR:
        out.push(typed(isString, (v) => a.appendVarchar(v)));
        break;
      case DuckDBTypeId.BIGINT:
        out.push(typed(isInt, (v) => a.appendBigInt(BigInt(v))));
        break;
      case DuckDBTypeId.UBIGINT:
        out.push(typed(isInt, (v) => a.appendUBigInt(BigInt(v))));
        break;
      case DuckDBTypeId.INTEGER:
        out.push(typed(isNumber, (v) => a.appendInteger(v)));
        break;
      case DuckDBTypeId.UTINYINT:
        out.push(typed(isNumber, (v) => a.appendUTinyInt(v)));
        break;
      case DuckDBTypeId.DOUBLE:
        out.push(typed(isNumber, (v) => a.appendDouble(v)));
        break;
      case DuckDBTypeId.BOOLEAN:
        out.push(typed(isBool, (v) => a.appendBoolean(v)));
        break;
      case DuckDBTypeId.BIGNUM:
        // The client's BIGNUM encoding of zero is a blob DuckDB rejects when the row is read
        // ("Invalid blob size"); zero takes the generic path, which DuckDB casts from an integer.
        out.push(
          typed(isInt, (v) => {
            const n = BigInt(v);
            if (n === 0n) a.appendValue(n);
            else a.appendBigNum(n);
          }),
        );
        break;
      case DuckDBTypeId.TIMESTAMP:
        out.push((v) => {
          if (v instanceof Date) a.appendTimestamp(new DuckDBTimestampValue(BigInt(v.getTime()) * 1000n));
          else generic(v);
        });
        break;
      default:
        out.push(generic);
    }
  }
  return out;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
