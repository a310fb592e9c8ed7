/**
 * Statements prepared once per kept connection (the connections of snapshot
 * views, which outlive their views: src/store/duckdb/createDuckDbStore.ts, `endView`). A
 * small query's statement text, and a lookup's, repeats with other values;
 * preparing it anew (parse, bind, plan, one trip to the engine's thread) took
 * 0.45 ms of a 10-block query's 2.9 in the engine (README, "Small results in
 * one piece"). DuckDB binds a kept statement again by itself when the catalog
 * changed since it was prepared, or when a value's type differs.
 */
import type { DuckDBConnection, DuckDBMaterializedResult, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { SqlParams } from '../types.ts';

/** Statements kept per connection; the least recently used one goes first. */
export const KEPT_STATEMENTS_PER_CONNECTION = 32;

interface Kept {
  readonly statement: DuckDBPreparedStatement;
  /** Bound and running: a statement holds one set of values at a time. */
  busy: boolean;
}

const kept = new WeakMap<DuckDBConnection, Map<string, Kept>>();

/**
 * Runs `sql` with `params` on `conn` to a finished result, through the
 * statement kept for that text (prepared at its first run). A run that finds
 * it in use (two lookups of one text at once on one view) prepares its own,
 * once. Closing the connection destroys its statements.
 */
export async function runKept(conn: DuckDBConnection, sql: string, params: SqlParams | undefined): Promise<DuckDBMaterializedResult> {
  let statements = kept.get(conn);
  if (!statements) {
    statements = new Map();
    kept.set(conn, statements);
  }
  let entry = statements.get(sql);
  if (entry?.busy) return runOnce(conn, sql, params);
  if (entry) {
    // Most recently used last, so that eviction takes the first.
    statements.delete(sql);
    statements.set(sql, entry);
  } else {
    const statement = await conn.prepare(sql);
    if (statements.has(sql)) {
      // Another run kept one for this text while this one was preparing.
      return runPrepared(statement, params, true);
    }
    entry = { statement, busy: false };
    statements.set(sql, entry);
    evict(statements);
  }
  entry.busy = true;
  try {
    return await runPrepared(entry.statement, params, false);
  } finally {
    entry.busy = false;
  }
}

/** Runs `sql` once on a statement of its own. */
export async function runOnce(conn: DuckDBConnection, sql: string, params: SqlParams | undefined): Promise<DuckDBMaterializedResult> {
  return runPrepared(await conn.prepare(sql), params, true);
}

async function runPrepared(statement: DuckDBPreparedStatement, params: SqlParams | undefined, destroy: boolean): Promise<DuckDBMaterializedResult> {
  try {
    if (params) statement.bind(params);
    return await statement.run();
  } finally {
    if (destroy) statement.destroySync();
  }
}

/** Drops the least recently used idle statements beyond the bound; one in use stays until a later eviction. */
function evict(statements: Map<string, Kept>): void {
  for (const [sql, entry] of statements) {
    if (statements.size <= KEPT_STATEMENTS_PER_CONNECTION) return;
    if (entry.busy) continue;
    statements.delete(sql);
    entry.statement.destroySync();
  }
}

/** How many statements `conn` keeps (for tests of the bound). */
export function keptStatementCount(conn: DuckDBConnection): number {
  return kept.get(conn)?.size ?? 0;
}
