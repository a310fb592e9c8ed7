/**
 * The ClickHouse renderer answers what the DuckDB renderer answers: the
 * planners' own query descriptions for real requests, rendered for each
 * engine and run on DuckDB and on chDB (ClickHouse in process, reached
 * through @clickhouse/client as a server would be) over the same rows, give
 * the same rows in the same order. Tables in chDB are created from the
 * catalog with ClickHouse types; the rows are copied from the demo store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { catalog } from '../../src/catalog/index.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { plannerFor } from '../../src/query/planner.ts';
import { CLICKHOUSE_TYPES, ident, renderClickHouse } from '../../src/store/clickhouse/render.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;
const BLOCKS = { network: 'ETH', block_start: ETH0, block_end: ETH0 + 600 };
const VENUE = { token: 'BTC', since: '2025-12-01T00:00:00Z', until: '2025-12-01T06:00:00Z' };

/** Requests whose descriptions exercise every expression, condition and query kind ClickHouse renders. */
const CASES: readonly { path: string; query: Record<string, unknown> }[] = [
  { path: '/v1/evm/erc20/events/transfer', query: { ...BLOCKS, token: 'USDT' } },
  { path: '/v1/evm/erc20/events/transfer', query: { ...BLOCKS, token: 'USDT', verbose: true, involving_category: 'exchange' } },
  { path: '/v1/evm/erc20/events/transfer', query: { ...BLOCKS, token: 'USDT', involving_label: 'E,no such label', min_amount: 10 } },
  { path: '/v1/evm/erc20/events/transfer', query: { ...BLOCKS, token: '0xdac17f958d2ee523a2206206994597c13d831ec7', decimals: 8, max_amount: 5 } },
  { path: '/v1/evm/erc20/events/transfer', query: { network: 'ETH', since: '2025-12-01T00:10:00Z', until: '2025-12-01T01:00:00Z', token: 'USDT' } },
  { path: '/v1/evm/erc20/events/transfer/aggregate', query: { ...BLOCKS, token: 'USDT', group_by: 'time', period: '13m' } },
  { path: '/v1/evm/erc20/events/transfer/aggregate', query: { ...BLOCKS, token: 'USDT', group_by: 'block_number', period: '100' } },
  { path: '/v1/evm/native/events/transfer', query: { ...BLOCKS, verbose: true } },
  { path: '/v1/evm/dex_v3/events/swap', query: { ...BLOCKS, symbol0: 'WETH', symbol1: 'USDC', fee: 500, verbose: true } },
  { path: '/v1/evm/dex_v3/events/swap/aggregate', query: { ...BLOCKS, symbol0: 'USDC', symbol1: 'WETH', fee: 500, group_by: 'time', period: '1h' } },
  { path: '/v1/exchange/venue_a/raw_trades', query: { ...VENUE, format: 'csv' } },
  { path: '/v1/exchange/venue_a/ohlcv', query: { ...VENUE, window: '15m', format: 'csv' } },
];

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

let t: TestApp;
let ch: ClickHouseClient;
let dir: string;

/** Creates each table the cases read in chDB, from the catalog, and copies the demo rows they need. */
async function copyTables(): Promise<void> {
  const tables = new Map(catalog.map((e) => [e.table.name, e.table]));
  const needed = new Map<string, string>([
    ['evm_erc20_transfer', `network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 2000}`],
    ['evm_native_transfer', `network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 2000}`],
    ['evm_dex_v3_swap', `network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 2000}`],
    ['venue_a_trades', `token = 'BTC' AND time < TIMESTAMP '2025-12-01 07:00:00'`],
    ['venue_a_klines', `token = 'BTC' AND time < TIMESTAMP '2025-12-01 07:00:00'`],
  ]);
  for (const [name, where] of needed) {
    const table = tables.get(name)!;
    // Text outside the sorting key may be null (a coinbase has no sender); a key never is.
    const nullable = (name: string, type: string) => (type === 'String' && !table.orderBy.includes(name) ? `Nullable(${type})` : type);
    const cols = table.columns.map((c) => `${ident(c.name)} ${nullable(c.name, CLICKHOUSE_TYPES[c.type])}`).join(', ');
    await ch.command({ query: `CREATE TABLE ${name} (${cols}) ENGINE = MergeTree ORDER BY (${table.orderBy.map(ident).join(', ')})` });
    const file = path.join(dir, `${name}.csv`);
    await t.store.copyToFile(`SELECT * FROM ${name} WHERE ${where}`, {}, 'csv', file);
    await ch.insert({ table: name, values: fs.createReadStream(file), format: 'CSVWithNames' });
  }
  await ch.command({ query: `CREATE TABLE labels (address String, label String, category String, network Nullable(String)) ENGINE = MergeTree ORDER BY address` });
  const labels = path.join(dir, 'labels.csv');
  await t.store.copyToFile('SELECT address, label, category, network FROM labels', {}, 'csv', labels);
  await ch.insert({ table: 'labels', values: fs.createReadStream(labels), format: 'CSVWithNames' });
}

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-'));
  // chdb types its connection against @clickhouse/client-common, which the client re-declares;
  // under exactOptionalPropertyTypes the two declarations differ only in optional settings.
  const connection = createChdbConnection({ path: path.join(dir, 'db') }) as unknown as ClientConnection;
  ch = createClient({ connection });
  await copyTables();
});

afterAll(async () => {
  await ch?.close();
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A DuckDB value and a ClickHouse JSON value are the same answer: numbers to 1e-9 (sums may add in another order), the rest exactly. */
function same(duck: unknown, click: unknown): boolean {
  if (duck === null || duck === undefined) return click === null;
  if (typeof duck === 'number' || typeof duck === 'bigint') {
    const a = Number(duck);
    const b = Number(click);
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  }
  if (typeof duck === 'boolean') return click === duck || click === Number(duck);
  return duck === click;
}

describe('ClickHouse renderer', () => {
  it.each(CASES)('answers $path like DuckDB', async ({ path: routePath, query }) => {
    const route = dataRoutes().find((r) => r.path === routePath)!;
    const plan = await plannerFor(route)({ store: t.store }, route, query);
    const duck = await engineSql(t.store).all<Record<string, unknown>>(plan.sql, plan.params);
    expect(duck.length, 'the case selects rows').toBeGreaterThan(0);

    const rendered = renderClickHouse(plan.query, 'parquet');
    expect(rendered.sql).not.toMatch(/\$p\d/);
    const result = await ch.query({ query: rendered.sql, query_params: rendered.params, format: 'JSONEachRow' });
    const click = await result.json<Record<string, unknown>>();

    expect(click.length).toBe(duck.length);
    expect(Object.keys(click[0]!)).toEqual(plan.columns);
    const differences = duck.flatMap((row, i) => plan.columns.filter((c) => !same(row[c], click[i]![c])).map((c) => `row ${i} ${c}: duckdb ${String(row[c])} clickhouse ${String(click[i]![c])}`));
    expect(differences.slice(0, 10)).toEqual([]);
  });

  it('binds request values as typed placeholders, never as text', async () => {
    const route = dataRoutes().find((r) => r.path === '/v1/evm/erc20/events/transfer')!;
    const evil = `x'); DROP TABLE labels; --`;
    const plan = await plannerFor(route)({ store: t.store }, route, { ...BLOCKS, token: 'USDT', involving_label: evil });
    const rendered = renderClickHouse(plan.query, 'parquet');
    expect(rendered.sql).not.toContain('DROP');
    expect(rendered.sql).toMatch(/\{p\d+:String\}/);
    expect(rendered.sql).toMatch(/\{p\d+:Int64\}/);
    expect(Object.values(rendered.params)).toContain(evil.toLowerCase());
  });
});
