/**
 * Rows of a scratch DuckDB table into the same ClickHouse table: the step of
 * every publish (publish.ts) that makes a batch's rows ClickHouse's.
 *
 * chDB runs in this process and reads this machine's files, so the rows
 * travel as a Parquet file that DuckDB writes and ClickHouse reads by column
 * name: typed columns, with nothing to print as text and parse again (the
 * CSV of `chainq copy` cost both engines about as much as the insert itself).
 * DuckDB writes its exact integers (BIGNUM) as decimal text, which ClickHouse
 * parses into the column's (U)Int256. A ClickHouse server gets the CSV
 * stream `chainq copy` sends it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ident as duckIdent } from '../duckdb/render.ts';
import type { DuckDbStore } from '../duckdb/types.ts';
import { columnsOf, columnText, insertFromDuckDb } from './copyFromDuckDb.ts';
import type { ClickHouseStore } from './types.ts';

/**
 * Inserts every row of the scratch table `table` into the ClickHouse table
 * `into` (one INSERT, which ClickHouse applies whole), then empties the
 * scratch table. Returns how many rows moved.
 */
export async function moveRows(source: DuckDbStore, ch: ClickHouseStore, table: string, into: string = table): Promise<number> {
  const [held] = await source.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${duckIdent(table)}`);
  const n = Number(held?.n ?? 0);
  if (n === 0) return 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-publish-'));
  try {
    if (ch.dataDir === null) {
      const columns = (await columnsOf(source, table)).map(columnText).join(', ');
      await insertFromDuckDb(source, `SELECT ${columns} FROM ${duckIdent(table)}`, {}, ch, into, dir);
    } else {
      const file = path.join(dir, `${table}.parquet`);
      // Uncompressed: the file is read once, at once, from this machine's disk.
      await source.run(`COPY ${duckIdent(table)} TO '${file.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION uncompressed)`);
      await ch.client.command({ query: `INSERT INTO ${ch.table(into)} SELECT * FROM file({file:String}, 'Parquet')`, query_params: { file } });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await source.run(`DELETE FROM ${duckIdent(table)}`);
  return n;
}
