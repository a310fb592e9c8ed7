/**
 * An independent re-implementation of bucketing for tests: what an aggregate
 * response should contain, computed in JS from raw rows. It shares no code
 * with the planner, so a planner bug cannot hide in both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from './engineSql.ts';

export type Row = Record<string, unknown>;

const UNIT: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
/** Monday 1970-01-05, where week buckets start. */
const MONDAY = Date.UTC(1970, 0, 5);

export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

export interface BucketKey {
  readonly k: number;
  readonly startMs?: number;
  readonly endMs?: number;
  readonly startBlock?: number;
  readonly endBlock?: number;
}

/** The bucket of a row by time (`period` like 7m, 1h, 1w) or by block (`period` a count). */
export function bucketOf(row: Row, groupBy: 'time' | 'block_number', period: string): BucketKey {
  if (groupBy === 'block_number') {
    const p = Number(period);
    const k = Math.floor(Number(row.block_number) / p);
    return { k, startBlock: k * p, endBlock: (k + 1) * p - 1 };
  }
  const m = /^(\d+)([mhdw])$/.exec(period);
  if (!m) throw new Error(`bad period ${period}`);
  const width = Number(m[1]) * UNIT[m[2]!]!;
  const origin = m[2] === 'w' ? MONDAY : 0;
  const t = Date.parse(String(row.time));
  const k = Math.floor((t - origin) / width);
  return { k, startMs: origin + k * width, endMs: origin + (k + 1) * width };
}

/** Groups rows by bucket (and optionally a further key), ascending. */
export function groupRows(rows: readonly Row[], groupBy: 'time' | 'block_number', period: string, by?: (r: Row) => string): { key: BucketKey; group: string; rows: Row[] }[] {
  const map = new Map<string, { key: BucketKey; group: string; rows: Row[] }>();
  for (const r of rows) {
    const key = bucketOf(r, groupBy, period);
    const group = by ? by(r) : '';
    const id = `${key.k}\u0000${group}`;
    let g = map.get(id);
    if (!g) {
      g = { key, group, rows: [] };
      map.set(id, g);
    }
    g.rows.push(r);
  }
  return [...map.values()].sort((a, b) => a.key.k - b.key.k || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
export const mean = (xs: readonly number[]): number => sum(xs) / xs.length;

/** Asserts two numbers agree up to floating-point summation order. */
export function expectClose(actual: unknown, expected: number | null, what: string): void {
  if (expected === null) {
    expect(actual, what).toBeNull();
    return;
  }
  expect(typeof actual, what).toBe('number');
  const a = actual as number;
  const tol = 1e-9 * Math.max(1, Math.abs(expected));
  if (Math.abs(a - expected) > tol) expect.fail(`${what}: ${a} is not ${expected}`);
}

/** A small RFC 4180 reader: header row, quoted fields, empty field = null. */
export function parseCsv(text: string): Row[] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else if (ch !== '\r') field += ch;
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  const [header, ...body] = records;
  if (!header) return [];
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] === '' ? null : r[i]])));
}

/** Reads a Parquet body back through DuckDB (`store` is a DuckDB store: a test app's oracle on either engine): its rows and its column types. */
export async function readParquet(store: Store, body: Buffer): Promise<{ rows: Row[]; types: Record<string, string> }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-test-')), 'body.parquet');
  fs.writeFileSync(file, body);
  try {
    const rows = await engineSql(store).all(`SELECT * FROM read_parquet($file)`, { file });
    const described = await engineSql(store).all<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet($file)`, { file });
    return { rows, types: Object.fromEntries(described.map((d) => [d.column_name, d.column_type])) };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
