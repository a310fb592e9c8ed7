/**
 * Read views of the DuckDB store: a read transaction on its own connection,
 * whose view of the database is fixed. Connections of ended views are kept
 * for later views, and the next request's view is opened ahead of it.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { WriteClock } from '../writeClock.ts';

/** Connections of ended views kept for later views: the light and heavy lanes' worth on a small machine. */
const IDLE_VIEW_CONNS = 16;
/** How long a view opened ahead of the next request is kept unused (see `take`). */
const WARM_VIEW_MS = 1000;

/** A read transaction whose view is fixed; `exact` when that view is store version `version` (no write in progress, begun or ended meanwhile). */
export interface OpenView {
  readonly conn: DuckDBConnection;
  readonly version: number;
  readonly exact: boolean;
}

export interface Views {
  /** A view for a snapshot: the one opened ahead when still current, else a new one. */
  take(): Promise<OpenView>;
  /** Ends a view; its connection, cleanly committed, serves a later view. */
  end(conn: DuckDBConnection): Promise<void>;
  /** Drops the view opened ahead (a write makes it stale). */
  dropWarm(): void;
  /** No view is opened from now on; the one opened ahead is dropped. */
  stop(): Promise<void>;
  /** Closes the kept connections (after every export on them stopped). */
  closeIdle(): void;
}

export function createViews(instance: DuckDBInstance, clock: WriteClock): Views {
  let warm: { readonly view: OpenView; readonly expiry: NodeJS.Timeout } | null = null;
  let warming: Promise<void> | null = null;
  const idle: DuckDBConnection[] = [];
  let closed = false;

  async function open(): Promise<OpenView> {
    const before = { version: clock.version, writers: clock.writers };
    const conn = idle.pop() ?? (await instance.connect());
    try {
      // DuckDB starts a transaction's view of the database at its first read, not at BEGIN: read in the same call.
      await conn.run('BEGIN TRANSACTION; SELECT count(*) FROM schema_version');
    } catch (e) {
      conn.closeSync();
      throw e;
    }
    return { conn, version: before.version, exact: before.writers === 0 && clock.writers === 0 && clock.version === before.version };
  }
  /**
   * Under load, opening a view on a new connection took 3.8-5.6 ms at the
   * median and 0.7 ms on a kept one (README "Performance"); a connection whose
   * query failed or was interrupted is closed instead.
   */
  function end(conn: DuckDBConnection): Promise<void> {
    return conn
      .run('COMMIT')
      .then(
        () => {
          if (!closed && idle.length < IDLE_VIEW_CONNS) idle.push(conn);
          else conn.closeSync();
        },
        () => conn.closeSync(),
      )
      .catch(() => undefined);
  }
  /**
   * Opening a view (connection, BEGIN, first read) took 0.8-1.4 ms of each
   * small query's path (README "Performance"), so the next one is opened
   * ahead. It is handed out only while no write has begun or ended since it
   * was opened, so it is exactly what a view opened now would see. Unused for
   * WARM_VIEW_MS it is dropped, so that an idle server holds no transaction
   * open (an open transaction keeps DuckDB from checkpointing).
   */
  function take(): Promise<OpenView> {
    const w = warm;
    if (w && w.view.version === clock.version && clock.writers === 0) {
      clearTimeout(w.expiry);
      warm = null;
      warmUp();
      return Promise.resolve(w.view);
    }
    dropWarm();
    const opened = open();
    opened.then(warmUp, () => undefined);
    return opened;
  }
  function warmUp(): void {
    if (warming || warm || closed) return;
    warming = open().then(
      (v) => {
        warming = null;
        if (closed || warm || !v.exact || v.version !== clock.version || clock.writers > 0) {
          void end(v.conn);
          return;
        }
        const expiry = setTimeout(dropWarm, WARM_VIEW_MS);
        expiry.unref();
        warm = { view: v, expiry };
      },
      () => {
        warming = null;
      },
    );
  }
  function dropWarm(): void {
    if (!warm) return;
    clearTimeout(warm.expiry);
    void end(warm.view.conn);
    warm = null;
  }
  return {
    take,
    end,
    dropWarm,
    async stop() {
      closed = true;
      await warming;
      dropWarm();
    },
    closeIdle() {
      for (const conn of idle.splice(0)) conn.closeSync();
    },
  };
}
