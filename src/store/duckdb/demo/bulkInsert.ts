/**
 * Loads rows built in JS into a table through a temporary CSV file, which
 * DuckDB parses far faster than values appended one by one from JS (the
 * appender converts every JS value separately). Demo use only: the values
 * are the demo's own, and the column types are declared by the caller.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tx } from '../types.ts';

export type CsvValue = string | number | bigint | boolean | null;

const field = (v: CsvValue): string => {
  if (v === null) return '';
  if (typeof v !== 'string') return String(v);
  return /[",\n\r]/.test(v) || v === '' ? `"${v.replaceAll('"', '""')}"` : v;
};

/** Inserts `rows` (in the order of `columns`) into `table`. */
export async function bulkInsert(tx: Tx, table: string, columns: readonly (readonly [string, string])[], rows: readonly (readonly CsvValue[])[]): Promise<void> {
  if (rows.length === 0) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-demo-'));
  const file = path.join(dir, `${table}.csv`);
  try {
    const fd = fs.openSync(file, 'w');
    try {
      const batch: string[] = [];
      for (const row of rows) {
        batch.push(row.map(field).join(','));
        if (batch.length === 50_000) {
          fs.writeSync(fd, `${batch.join('\n')}\n`);
          batch.length = 0;
        }
      }
      if (batch.length) fs.writeSync(fd, `${batch.join('\n')}\n`);
    } finally {
      fs.closeSync(fd);
    }
    const spec = columns.map(([name, type]) => `'${name}': '${type}'`).join(', ');
    await tx.run(
      `INSERT INTO ${table} (${columns.map(([name]) => `"${name}"`).join(', ')})
      SELECT * FROM read_csv($file, header = false, columns = {${spec}}, nullstr = '', allow_quoted_nulls = false, quote = '"', escape = '"')`,
      { file },
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
