/**
 * Statements prepared once per kept connection (the connections of snapshot
 * views, which outlive their views: src/store/createStore.ts, `endView`). A
 * small query's statement text repeats with other values; preparing it anew
 * (parse, bind, plan, one trip to the engine's thread) took 0.45 ms of a
 * 10-block query's 2.9 in the engine (README, "Small results in one piece").
 * DuckDB binds a kept statement again by itself when the catalog changed
 * since it was prepared, or when a value's type differs.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/** Statements kept per connection; the least recently used one goes first. */
export const KEPT_STATEMENTS_PER_CONNECTION = 32;

const kept = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

/**
 * `sql` prepared on `conn`, from an earlier call if there was one. Only one
 * query at a time may use a connection's statements (a view's connection
 * serves its one request); closing the connection destroys them.
 */
export async function keptStatement(conn: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let statements = kept.get(conn);
  if (!statements) {
    statements = new Map();
    kept.set(conn, statements);
  }
  const hit = statements.get(sql);
  if (hit) {
    // Most recently used last, so that eviction takes the first.
    statements.delete(sql);
    statements.set(sql, hit);
    return hit;
  }
  const prepared = await conn.prepare(sql);
  statements.set(sql, prepared);
  if (statements.size > KEPT_STATEMENTS_PER_CONNECTION) {
    const [oldest, statement] = statements.entries().next().value!;
    statements.delete(oldest);
    statement.destroySync();
  }
  return prepared;
}

/** How many statements `conn` keeps (for tests of the bound). */
export function keptStatementCount(conn: DuckDBConnection): number {
  return kept.get(conn)?.size ?? 0;
}
