/**
 * An in-memory DuckDB store that starts as a copy of a database file. The
 * tests open the demo store dozens of times per run; generating it takes the
 * engine seconds each time, copying the file built once takes a fraction of
 * that, and the store stays in memory (the same ledger and exports as a
 * freshly generated one, and nothing written back to the file).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export async function copyDatabaseFile(conn: DuckDBConnection, file: string): Promise<void> {
  // ATTACH takes no bound parameters; the path is the opener's, never a client's.
  await conn.run(`ATTACH '${file.replaceAll("'", "''")}' AS copy_source (READ_ONLY)`);
  try {
    await conn.run('COPY FROM DATABASE copy_source TO memory');
  } finally {
    await conn.run('DETACH copy_source');
  }
}
