/**
 * Zeros written by older versions into BIGNUM columns. The DuckDB client's
 * BIGNUM encoding of 0 (used by the appender until the writer sent zero
 * another way) is a blob the engine refuses to read back ("Invalid blob
 * size"): any query over such a row failed. Comparisons still work on it, and
 * it is the only value strictly between -1 and 1 that is not the engine's
 * own zero, so each is found by comparison and replaced by a readable zero.
 * Runs once per store (a full scan of each BIGNUM column), then is recorded.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

const REPAIR = 'bignum_zero';

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

export async function repairBignumZeros(conn: DuckDBConnection): Promise<void> {
  await conn.run('CREATE TABLE IF NOT EXISTS store_repairs (repair VARCHAR, done_at TIMESTAMP)');
  const done = await conn.runAndReadAll('SELECT 1 FROM store_repairs WHERE repair = $repair', { repair: REPAIR });
  if (done.currentRowCount > 0) return;
  const columns = (
    await conn.runAndReadAll(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main' AND data_type = 'BIGNUM' ORDER BY table_name, column_name`)
  ).getRowObjectsJS() as { table_name: string; column_name: string }[];
  await conn.run('BEGIN TRANSACTION');
  try {
    for (const c of columns) {
      const col = ident(c.column_name);
      await conn.run(`UPDATE ${ident(c.table_name)} SET ${col} = 0::BIGNUM WHERE ${col} > -1::BIGNUM AND ${col} < 1::BIGNUM AND NOT ${col} = 0::BIGNUM`);
    }
    await conn.run('INSERT INTO store_repairs VALUES ($repair, now()::TIMESTAMP)', { repair: REPAIR });
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK');
    throw e;
  }
}
