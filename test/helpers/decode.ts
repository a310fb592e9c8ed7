/**
 * Reads CSV and Parquet response bodies back into rows with DuckDB's own
 * readers, so that the three formats of one query can be compared row by row.
 * `store` is a DuckDB store: a test app's oracle, whichever engine serves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from './engineSql.ts';

export type Row = Record<string, unknown>;

export async function readBody(store: Store, body: Buffer, format: 'csv' | 'parquet'): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-test-'));
  const file = path.join(dir, `body.${format}`);
  fs.writeFileSync(file, body);
  try {
    const reader = format === 'csv' ? `read_csv($file, header = true, all_varchar = true)` : `read_parquet($file)`;
    return await engineSql(store).all<Row>(`SELECT * FROM ${reader}`, { file });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A value as text the way CSV carries it: null → '', booleans lower-case, numbers in shortest form. */
export function asCsvText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  return String(v);
}

/** Brings a JSON or Parquet value to a comparable JS value. */
export function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  return v;
}
