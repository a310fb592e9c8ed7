/**
 * Exports from DuckDB: a query's encoded result (COPY) streamed through a
 * named pipe, or written to a file, each waiting its turn in its lane.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBMaterializedResult } from '@duckdb/node-api';
import fs from 'node:fs';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import type { Format } from '../../catalog/types.ts';
import type { ExportLanes, ExportThrottle } from '../exportLanes.ts';
import type { FifoPool } from '../fifoMaker.ts';
import type { CopyStream, ExportOptions, ResultColumn, SqlParams } from '../types.ts';
import { type OnePiece, onePieceStream, readOnePiece } from './onePiece.ts';

/** A pipe holds 64 KiB unless told otherwise: no read returns more. */
const PIPE_READ_BYTES = 64 * 1024;

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

export interface Copier {
  /** Streams a query's encoded result; on `onConn` (a snapshot's connection, left open) or on a connection of its own. */
  copyToStream(sql: string, params: SqlParams, format: Format, onConn: DuckDBConnection | null, o: ExportOptions | undefined): Promise<CopyStream>;
  /** A file export (a download link's artifact) waits in its lane as a streamed one does; one given a throttle streams into the file (../exportThrottle.ts). */
  copyToFileOn(conn: DuckDBConnection, sql: string, params: SqlParams, format: Format, file: string, o: ExportOptions | undefined): Promise<number>;
  /** Stops every export whose COPY has not settled, and waits for them. */
  stopAll(): Promise<void>;
}

type Running = Set<{ readonly cancel: () => void; readonly stopped: Promise<void> }>;

export function createCopier(instance: DuckDBInstance, lanes: ExportLanes, fifoPool: FifoPool, streamBufferBytes: number): Copier {
  /** Exports whose COPY into a fifo has not settled: close() stops them before it removes their folder. */
  const running: Running = new Set();
  const fifoExports: FifoExports = { instance, fifoPool, streamBufferBytes, running };

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
    return copyThroughFifo(fifoExports, sql, params, format, onConn, release);
  }

  async function copyToFileOn(conn: DuckDBConnection, sql: string, params: SqlParams, format: Format, file: string, o: ExportOptions | undefined): Promise<number> {
    const release = await lanes.acquire(o?.lane ?? 'light');
    if (o?.throttle) return copyThroughFifoToFile(fifoExports, conn, sql, params, format, { file, throttle: o.throttle, tap: o.tap }, release);
    try {
      return await rowCount(await conn.run(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' ${copyOptions(format)}`, params));
    } finally {
      release();
    }
  }
  return {
    copyToStream,
    copyToFileOn,
    async stopAll() {
      for (const e of running) e.cancel();
      await Promise.all([...running].map((e) => e.stopped));
    },
  };
}

/** What a streamed export needs: fifos to write to, and the set of exports not settled yet. */
interface FifoExports {
  readonly instance: DuckDBInstance;
  readonly fifoPool: FifoPool;
  readonly streamBufferBytes: number;
  readonly running: Running;
}

/** Streams a query's encoded result through a fifo the engine's COPY writes; `release` frees its lane. */
async function copyThroughFifo(f: FifoExports, sql: string, params: SqlParams, format: Format, onConn: DuckDBConnection | null, release: () => void): Promise<CopyStream> {
  const { instance, fifoPool, streamBufferBytes, running } = f;
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

/** Where a throttled file export goes: its file, the turns it waits for, and what sees its bytes. */
interface FileTarget {
  readonly file: string;
  readonly throttle: ExportThrottle;
  readonly tap: ((piece: Uint8Array) => void) | undefined;
}

/** Writes in flight at once: a piece is copied into a free slot and written from it while the next is read. */
const WRITE_SLOTS = 4;

interface SlotWriter {
  /** Copies a piece into a free slot and starts writing it after the pieces before it. Only when `hasFree()`. */
  write(piece: Uint8Array): void;
  hasFree(): boolean;
  /** Resolves once every write has ended; rejects with the first that failed. */
  flush(): Promise<void>;
}

/**
 * Pieces written asynchronously at their offsets in the file, each from one of
 * a few reused slots: the event loop never waits on the disk (a write blocked
 * by the kernel's dirty-page throttling holds a thread-pool thread, not the
 * server), and no piece allocates. `onFreed` runs when a slot is free again.
 */
function slotWriter(fd: number, onFreed: () => void): SlotWriter {
  const free: Buffer[] = Array.from({ length: WRITE_SLOTS }, () => Buffer.allocUnsafe(PIPE_READ_BYTES));
  let offset = 0;
  let pending = 0;
  let failure: { readonly error: unknown } | null = null;
  let drained: (() => void) | null = null;
  const settle = (slot: Buffer, e: unknown) => {
    pending--;
    free.push(slot);
    if (e) failure ??= { error: e };
    if (pending === 0) drained?.();
    onFreed();
  };
  const writeAt = (slot: Buffer, from: number, to: number, at: number) =>
    fs.write(fd, slot, from, to - from, at, (e, n) => (e || from + n >= to ? settle(slot, e) : writeAt(slot, from + n, to, at + n)));
  return {
    write(piece) {
      const slot = free.pop();
      if (!slot) throw new Error('no free slot: the caller writes only when hasFree()');
      slot.set(piece);
      pending++;
      writeAt(slot, 0, piece.byteLength, offset);
      offset += piece.byteLength;
    },
    hasFree: () => free.length > 0,
    async flush() {
      if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
      if (failure) throw failure.error;
    },
  };
}

/**
 * Reads a fifo into one reused buffer, handing each piece to `onPiece`, which
 * must be done with it before it answers; reading pauses when it answers
 * false, until the socket is resumed. As for a streamed export, the read end
 * is opened first and non-blocking, and read through the event loop.
 */
function pieceReader(fifo: string, onPiece: (piece: Uint8Array) => boolean): net.Socket {
  const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  return new net.Socket({
    fd,
    readable: true,
    writable: false,
    onread: { buffer: Buffer.allocUnsafe(PIPE_READ_BYTES), callback: (n: number, buffer: Uint8Array) => onPiece(buffer.subarray(0, n)) },
  } as net.SocketConstructorOpts);
}

/**
 * A file export that gives way (src/store/exportLanes.ts, ExportThrottle):
 * the COPY writes a fifo that this process reads into one reused buffer and
 * writes on to the file (slotWriter), a piece at a time, each once the
 * throttle gives a turn. While a turn is awaited, or every slot is still being
 * written, nothing is read, so the engine's write blocks and its threads stop
 * working on the export within about a row group. A stream with a Buffer, a
 * promise and a thread-pool round trip per piece cost the export about 5% of
 * its time on 2 cores (bench/README.md, "exports").
 */
async function copyThroughFifoToFile(f: FifoExports, conn: DuckDBConnection, sql: string, params: SqlParams, format: Format, target: FileTarget, release: () => void): Promise<number> {
  const { file, throttle, tap } = target;
  let fifo: string | undefined;
  let out: number | undefined;
  let reader: net.Socket | undefined;
  let writer: SlotWriter | undefined;
  let interrupting: NodeJS.Timeout | undefined;
  try {
    fifo = await f.fifoPool.take();
    out = fs.openSync(file, 'w');
    /**
     * Why the export failed (first cause only); a piece read while no turn was given or no slot was free,
     * copied out of the reused buffer until both are; whether a turn is given; whether reading is paused.
     */
    const state: { failure: { readonly error: unknown } | null; held: Buffer | null; granted: boolean; paused: boolean } = { failure: null, held: null, granted: false, paused: false };
    // Once failed, the fifo is read to nothing until the COPY settles: an engine that has not opened it yet
    // would otherwise wait for a reader forever. An interrupt that comes before the engine has begun the
    // query is lost, so it is repeated until then.
    const fail = (error: unknown) => {
      if (state.failure) return;
      state.failure = { error };
      conn.interrupt();
      interrupting = setInterval(() => conn.interrupt(), 20);
      state.paused = false;
      reader?.resume();
    };
    /** Writes a piece whose turn has come, then asks for the next turn. */
    const pass = (w: SlotWriter, piece: Uint8Array) => {
      tap?.(piece);
      w.write(piece);
      askTurn();
    };
    /** Writes a held piece and resumes reading, once a turn is given and a slot is free. */
    const pump = () => {
      if (state.failure || !state.granted || !writer?.hasFree()) return;
      const piece = state.held;
      if (piece) {
        state.held = null;
        pass(writer, piece);
        if (!state.granted || !writer.hasFree()) return;
      }
      if (state.paused) {
        state.paused = false;
        reader?.resume();
      }
    };
    const slots = slotWriter(out, pump);
    writer = slots;
    /** Asks for the next turn; `pump` goes on once it comes. */
    function askTurn() {
      state.granted = false;
      throttle.turn().then(() => {
        state.granted = true;
        pump();
      }, fail);
    }
    const socket = pieceReader(fifo, (piece) => {
      if (state.failure) return true;
      if (state.granted && slots.hasFree()) {
        pass(slots, piece);
        if (slots.hasFree()) return true;
      } else {
        state.held = Buffer.from(piece);
      }
      state.paused = true;
      return false;
    });
    reader = socket;
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('end', resolve);
      socket.on('error', reject);
    });
    ended.catch(fail);
    askTurn();
    // The fifo path is ours, never user text; the user's values are bound parameters.
    const done = conn.run(`COPY (${sql}) TO '${fifo}' ${copyOptions(format)}`, params).then(rowCount);
    const exporting = {
      cancel: () => fail(new Error('the export was stopped')),
      stopped: done.then(
        () => undefined,
        () => undefined,
      ),
    };
    f.running.add(exporting);
    try {
      const rows = await done.catch((e: unknown) => {
        // The first cause: a throttle that failed first is why the engine was interrupted.
        fail(e);
        throw state.failure ? state.failure.error : e;
      });
      // The engine has closed the fifo: what it wrote is read to its end (written, or after a failure read to nothing).
      await ended;
      await slots.flush();
      if (state.failure) throw state.failure.error;
      return rows;
    } finally {
      await exporting.stopped;
      f.running.delete(exporting);
    }
  } finally {
    clearInterval(interrupting);
    reader?.destroy();
    // The file is closed only once no write of it is in flight.
    await writer?.flush().catch(() => undefined);
    if (out !== undefined) fs.closeSync(out);
    // unlink, not rm: rm stats the path twice before unlinking it. The COPY has settled: nothing opens it again.
    if (fifo) fs.unlink(fifo, () => undefined);
    release();
  }
}

/** The columns a query answers, read from its empty result. */
export async function describeOn(conn: DuckDBConnection, sql: string, params: SqlParams): Promise<ResultColumn[]> {
  const r = await conn.run(`SELECT * FROM (${sql}) LIMIT 0`, params);
  const types = r.columnTypes();
  return r.columnNames().map((name, i) => ({ name, type: String(types[i]) }));
}

/** COPY answers one row holding the number of rows it wrote. */
async function rowCount(result: DuckDBMaterializedResult): Promise<number> {
  const rows = await result.getRows();
  return Number(rows[0]?.[0] ?? 0);
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
