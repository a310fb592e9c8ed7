/** Reading response bodies back in tests: CSV into rows, Parquet through the engine. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from './engineSql.ts';

export interface Csv {
  readonly header: string[];
  readonly rows: Record<string, string>[];
}

/** Parses the service's CSV (no field of the test data needs quoting). */
export function parseCsv(text: string): Csv {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const header = lines[0]!.split(',');
  return { header, rows: lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i]!, v]))) };
}

export interface ParquetContent {
  readonly columns: { name: string; type: string }[];
  readonly rows: Record<string, unknown>[];
}

/** Reads a Parquet body with DuckDB (a DuckDB store: a test app's oracle on either engine): its column types and rows. */
export async function readParquet(store: Store, body: Buffer): Promise<ParquetContent> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-test-'));
  const file = path.join(dir, 'body.parquet');
  fs.writeFileSync(file, body);
  try {
    const columns = (await engineSql(store).all<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet($file)`, { file })).map((c) => ({
      name: c.column_name,
      type: c.column_type,
    }));
    const rows = await engineSql(store).all<Record<string, unknown>>(`SELECT * FROM read_parquet($file)`, { file });
    return { columns, rows };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
