/**
 * A batch reaches chDB as a Parquet file the scratch DuckDB writes
 * (src/store/clickhouse/scratchTransfer.ts). These tests put the extreme
 * value of every column type, and NULL in every column that may hold one,
 * into each dataset table of the scratch store, move them, and read them
 * back from chDB as text: exact 256-bit integers of both signs, 64-bit
 * bounds, millisecond timestamps, strings with quotes and backslashes,
 * lists.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog/index.ts';
import type { StoredType, TableDef } from '../../src/catalog/types.ts';
import { type ClickHouseStore, createClickHouseStore } from '../helpers/clickhouseStore.ts';
import { ident } from '../../src/store/clickhouse/render.ts';
import { scratchStore } from '../../src/store/clickhouse/scratch.ts';
import { moveRows } from '../../src/store/clickhouse/scratchTransfer.ts';

const dirs: string[] = [];
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function chdbStore(): Promise<ClickHouseStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chtransfer-'));
  dirs.push(dir);
  const store = await createClickHouseStore({ target: { engine: 'chdb', dir } });
  closing.push(() => store.close());
  return store;
}

/** Each type's extreme value: as a DuckDB literal, and as ClickHouse's toString prints it. */
const EXTREMES: Readonly<Record<StoredType, { readonly duck: string; readonly text: string }>> = {
  string: { duck: `'it''s "quoted" \\ ✓'`, text: `it's "quoted" \\ ✓` },
  boolean: { duck: 'true', text: 'true' },
  uint8: { duck: '255', text: '255' },
  int32: { duck: '-2147483648', text: '-2147483648' },
  int64: { duck: '-9223372036854775808', text: '-9223372036854775808' },
  uint64: { duck: '18446744073709551615', text: '18446744073709551615' },
  float64: { duck: '0.1', text: '0.1' },
  timestamp: { duck: `TIMESTAMP '2024-02-29 23:59:59.123'`, text: '2024-02-29 23:59:59.123' },
  uint256: {
    duck: `'115792089237316195423570985008687907853269984665640564039457584007913129639935'::BIGNUM`,
    text: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
  },
  int256: {
    duck: `'-57896044618658097711785492504343953926634992332820282019728792003956564819968'::BIGNUM`,
    text: '-57896044618658097711785492504343953926634992332820282019728792003956564819968',
  },
};

const datasetTables = (): TableDef[] => [...new Map(catalog.map((e) => [e.table.name, e.table])).values()];

describe('moving scratch rows into chDB', () => {
  it('keeps the extreme value of every column type, and NULL in every column outside the sorting key, in every dataset table', async () => {
    const ch = await chdbStore();
    const scratch = await scratchStore();
    for (const t of datasetTables()) {
      const keys = new Set(t.orderBy);
      const full = t.columns.map((c) => EXTREMES[c.type].duck).join(', ');
      const sparse = t.columns.map((c) => (keys.has(c.name) ? EXTREMES[c.type].duck : 'NULL')).join(', ');
      await scratch.run(`INSERT INTO ${t.name} VALUES (${full}), (${sparse})`);
      expect(await moveRows(scratch, ch, t.name)).toBe(2);

      const held = await ch.query<Record<string, string | null>>(`SELECT ${t.columns.map((c) => `toString(${ident(c.name)}) AS ${ident(c.name)}`).join(', ')} FROM ${ch.table(t.name)}`);
      expect(held, t.name).toHaveLength(2);
      expect(held, t.name).toContainEqual(Object.fromEntries(t.columns.map((c) => [c.name, EXTREMES[c.type].text])));
      expect(held, t.name).toContainEqual(Object.fromEntries(t.columns.map((c) => [c.name, keys.has(c.name) ? EXTREMES[c.type].text : null])));
      const [left] = await scratch.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${t.name}`);
      expect(Number(left?.n), `${t.name} is emptied in the scratch store`).toBe(0);
    }
  });

  it('moves list columns, and nothing from an empty scratch table', async () => {
    const ch = await chdbStore();
    const scratch = await scratchStore();
    await scratch.run(
      `INSERT INTO tokens VALUES ('Q''T', 'quote \\ token', ['it''s', 'back\\slash', ''], 'ETH', '0x00000000000000000000000000000000000000aa', 6), ('E', 'empty', [], 'ETH', '0x00000000000000000000000000000000000000bb', 0)`,
    );
    expect(await moveRows(scratch, ch, 'tokens')).toBe(2);
    const rows = await ch.query<{ symbol: string; name: string; aliases: string[]; decimals: number }>(
      `SELECT symbol, name, aliases, decimals FROM ${ch.table('tokens')} WHERE address IN ('0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb') ORDER BY address`,
    );
    expect(rows).toEqual([
      { symbol: "Q'T", name: 'quote \\ token', aliases: ["it's", 'back\\slash', ''], decimals: 6 },
      { symbol: 'E', name: 'empty', aliases: [], decimals: 0 },
    ]);
    expect(await moveRows(scratch, ch, 'tokens')).toBe(0);
  });
});
