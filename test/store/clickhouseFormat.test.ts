/**
 * ClickHouse writes each column as DuckDB's COPY writes it (docs/storage.md,
 * "The same bytes on both engines"): the same values go through DuckDB's
 * `COPY … (FORMAT csv|json)` and through ClickHouse (chDB, reached through
 * @clickhouse/client as a server would be) with the SELECT list, FORMAT and
 * settings of `src/store/clickhouse/format.ts`; the bytes must be equal.
 * Floats cover every decimal exponent from -30 to 30 with 1 to 17
 * significant digits, the limits of a double, zeros and NULL; text covers
 * every character DuckDB's CSV quotes for, and those JSON escapes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnType } from '../../src/catalog/types.ts';
import { connectClickHouse } from '../helpers/clickhouseStore.ts';
import { clickHouseExport, exportSelectList } from '../../src/store/clickhouse/format.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

let duck: Store;
let ch: ClickHouseClient;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-format-'));
  duck = await createStore({ dataDir: null, threads: 1 });
  ch = await connectClickHouse({ engine: 'chdb', dir: path.join(dir, 'chdb') });
});

afterAll(async () => {
  await ch?.close();
  await duck?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Doubles as text both engines parse to the same value: a fixed pseudo-random spread over magnitudes. */
function doubles(): string[] {
  const out: string[] = [];
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let e = -30; e <= 30; e++) {
    for (let k = 0; k < 20; k++) {
      const digits = 1 + Math.floor(next() * 17);
      out.push(`${next() < 0.3 ? '-' : ''}${(1 + next() * 9).toFixed(digits - 1)}e${e}`);
    }
    out.push(`1e${e}`, `-1e${e}`, `9.999999999999999e${e}`, `5e${e}`);
  }
  return [...out, '0', '-0', '5e-324', '1.7976931348623157e308', '2.2250738585072014e-308', '9007199254740993', '0.1', '1000000'];
}

const TEXTS = [
  'plain',
  'a b',
  ' lead',
  'trail ',
  'tab\tx',
  'semi;colon',
  'com,ma',
  'quote"in',
  '"',
  'nl\nx',
  'cr\rx',
  '',
  'é€𝄞',
  'back\\slash',
  "'single'",
  'a/b',
  '\u0001\u001f\u007f',
  '\u2028',
  'x\u2029y\u2028\\u2028"',
  'NULL',
  '\\N',
  'true',
];

const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;
const chText = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

interface Case {
  readonly name: string;
  readonly type: ColumnType;
  /** The values as DuckDB and ClickHouse literals, NULL included. */
  readonly duck: readonly string[];
  readonly click: readonly string[];
}

const CASES: readonly Case[] = [
  { name: 'x', type: 'double', duck: [...doubles().map((d) => `${sqlText(d)}::DOUBLE`), 'NULL'], click: [...doubles().map((d) => `toFloat64(${chText(d)})`), 'NULL'] },
  { name: 'x', type: 'string', duck: [...TEXTS.map(sqlText), 'NULL'], click: [...TEXTS.map(chText), 'NULL'] },
  {
    name: 'x',
    type: 'integer',
    duck: ['0', '-1', '9223372036854775807::BIGINT', '(-2147483648)::INTEGER', 'NULL'],
    click: ['0', '-1', 'toInt64(9223372036854775807)', 'toInt32(-2147483648)', 'NULL'],
  },
  { name: 'x', type: 'boolean', duck: ['true', 'false', 'NULL'], click: ['true', 'false', 'NULL'] },
  // Names that need quoting in a CSV header, and escaping in JSON.
  { name: 'a,"b"', type: 'integer', duck: ['1'], click: ['1'] },
  { name: 'tab\tand/slash', type: 'integer', duck: ['1'], click: ['1'] },
];

/** What DuckDB's COPY writes for the values, in order. */
async function duckBytes(c: Case, format: 'csv' | 'json'): Promise<string> {
  const file = path.join(dir, `duck.${format}`);
  const values = c.duck.map((v, i) => `(${i}, ${v})`).join(', ');
  const name = `"${c.name.replaceAll('"', '""')}"`;
  await engineSql(duck).run(`COPY (SELECT x AS ${name} FROM (VALUES ${values}) v(i, x) ORDER BY i) TO '${file}' ${format === 'csv' ? '(FORMAT csv, HEADER true)' : '(FORMAT json)'}`);
  return fs.readFileSync(file, 'utf8');
}

/** What ClickHouse writes for the same values through the export's SELECT list, FORMAT and settings. */
async function clickBytes(c: Case, format: 'csv' | 'json'): Promise<string> {
  const out = clickHouseExport(format);
  const rows = `SELECT p.1 AS i, p.2 AS x FROM (SELECT arrayJoin(arrayZip(range(length(a)), a)) AS p FROM (SELECT [${c.click.join(', ')}] AS a))`;
  const sql = `SELECT ${exportSelectList([{ sql: 'x', name: c.name, type: c.type }], format)} FROM (${rows}) ORDER BY i FORMAT ${out.format}`;
  const result = await ch.exec({ query: sql, clickhouse_settings: { ...out.settings } });
  const chunks: Buffer[] = [];
  for await (const chunk of result.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('ClickHouse export text', () => {
  it.each(CASES.flatMap((c) => (['csv', 'json'] as const).map((format) => ({ ...c, format, label: `${c.type} ${JSON.stringify(c.name)}` }))))(
    "$label in $format is DuckDB's, byte for byte",
    async ({ format, ...c }) => {
      const [want, got] = [await duckBytes(c, format), await clickBytes(c, format)];
      const a = want.split('\n');
      const b = got.split('\n');
      const differences = a.flatMap((line, i) => (line === b[i] ? [] : [`line ${i}: duckdb ${JSON.stringify(line)} clickhouse ${JSON.stringify(b[i])}`]));
      expect(differences.slice(0, 10)).toEqual([]);
      expect(got).toBe(want);
    },
  );

  it('writes a CSV header alone when there are no rows, as DuckDB does', async () => {
    const out = clickHouseExport('csv');
    const result = await ch.exec({
      query: `SELECT ${exportSelectList([{ sql: 'number', name: 'n', type: 'integer' }], 'csv')} FROM numbers(0) FORMAT ${out.format}`,
      clickhouse_settings: { ...out.settings },
    });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    const file = path.join(dir, 'empty.csv');
    await engineSql(duck).run(`COPY (SELECT 1 AS n WHERE false) TO '${file}' (FORMAT csv, HEADER true)`);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(fs.readFileSync(file, 'utf8'));
  });
});
