/**
 * The DuckDB store's own interface: its raw statements, which DuckDB code of
 * the store folder runs beside the contract (../types.ts has none: outside
 * src/store/ nothing writes SQL, docs/storage.md "The engine boundary").
 */
import type { AppendValue, Row, SqlParams, Store } from '../types.ts';

/** A transaction's statements, on its own connection (DuckDbStatements.transaction). */
export interface Tx {
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /**
   * Appends rows to a table (columns in table order). Values of the column's
   * own JS type take a typed fast path (a bigint fills a BIGNUM, a Date a
   * TIMESTAMP); others are cast by the engine (a decimal string fills a
   * BIGNUM, 'YYYY-MM-DD HH:MM:SS' a TIMESTAMP).
   */
  append(table: string, rows: readonly (readonly AppendValue[])[]): Promise<void>;
}

/** Statements in DuckDB's SQL, on the store's shared connection (a snapshot's: on its view). */
export interface DuckDbStatements {
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /**
   * Runs `fn` inside one transaction on a dedicated connection. Cached
   * lookups are dropped when it commits (the usage ledger, which no lookup
   * reads, writes around the cache).
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export interface DuckDbStore extends Store, DuckDbStatements {
  readonly engine: 'duckdb';
}

const hasStatements = (store: Store): store is DuckDbStore => 'transaction' in store && typeof store.transaction === 'function';

/**
 * The DuckDB store behind a `Store` (its snapshots included), or null for
 * another engine. Store code picks its DuckDB form by it; outside src/store/,
 * only the tests' and benches' helpers use it (test/helpers/engineSql.ts,
 * bench/lib/engineSql.ts), to set up fixtures and inspect what the engine
 * holds (test/architecture.test.ts keeps it there).
 */
export function duckDbOf(store: Store): DuckDbStore | null {
  return store.engine === 'duckdb' && hasStatements(store) ? store : null;
}

/** The DuckDB store behind `store`, for code that has no form for another engine. */
export function requireDuckDb(store: Store, what: string): DuckDbStore {
  const duck = duckDbOf(store);
  if (!duck) throw new Error(`${what} runs on a DuckDB store, not on ${store.engine}`);
  return duck;
}
