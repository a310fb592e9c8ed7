/**
 * Small JSON results in one piece (src/store/duckdb/onePiece.ts): the bytes
 * are those the engine's COPY writes, for every kind of row the catalog
 * answers in JSON, and a result too large for one piece streams through the
 * fifo with the same bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { plannerFor } from '../../src/query/planner.ts';
import { ONE_PIECE_MAX_ROWS, onePieceSql } from '../../src/store/duckdb/onePiece.ts';
import { createTestApp, TEST_ENGINE, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const ETH = 'network=ETH&block_start=23910000&block_end=23910099';

/** One small JSON query per kind of row: raw events, aggregates, Tron, Bitcoin, candles. */
const SMALL = [
  `/v1/evm/erc20/events/transfer?${ETH}&token=USDT`,
  `/v1/evm/native/events/transfer?${ETH}`,
  `/v1/evm/dex_v3/events/swap?network=ETH&block_start=23910000&block_end=23910299&symbol0=WETH&symbol1=USDC&fee=500&with_value=true`,
  `/v1/evm/lending_v3/events/deposit?network=ETH&block_start=23910000&block_end=23913599`,
  `/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=USDC&group_by=time&period=1h`,
  `/v1/evm/native/events/transfer/aggregate?network=ETH&block_start=23910250&block_end=23910749&group_by=block_number&period=100`,
  '/v1/tron/native/events/transfer?since=2025-12-01T01:00:00Z&until=2025-12-01T01:10:00Z',
  '/v1/btc/native/events/transfer/aggregate?since=2025-12-01T00:00:00Z&until=2025-12-01T10:00:00Z&period=1h',
  '/v1/exchange/venue_b/ohlcv?token=BTC&since=2025-12-01T00:00:00Z&until=2025-12-01T06:00:00Z&window=15m&format=json',
];

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-onepiece-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function planOf(url: string) {
  const u = new URL(`http://x${url}`);
  const route = dataRoutes().find((r) => r.path === u.pathname);
  if (!route) throw new Error(`no route ${u.pathname}`);
  // What the route's validation makes of these values: block numbers, fees and flags typed, the rest text.
  const query: Record<string, unknown> = { format: 'json' };
  for (const [k, v] of u.searchParams) query[k] = ['block_start', 'block_end', 'fee'].includes(k) ? Number(v) : v === 'true' ? true : v;
  return plannerFor(route)({ store: t.store }, route, query);
}

/** What COPY (FORMAT json) writes for the plan: the bytes the fifo path streams. */
async function copied(plan: Awaited<ReturnType<typeof planOf>>): Promise<string> {
  const file = path.join(dir, `${Math.random()}.json`);
  await t.store.copyToFile(plan.sql, plan.params, 'json', file);
  return fs.readFileSync(file, 'utf8');
}

async function streamed(plan: Awaited<ReturnType<typeof planOf>>, small: boolean): Promise<{ body: string; rows: number }> {
  const exp = await t.store.copyToStream(plan.sql, plan.params, 'json', { small });
  const body = Buffer.concat(await Readable.from(exp.stream).toArray()).toString('utf8');
  return { body, rows: await exp.done };
}

describe.runIf(TEST_ENGINE === 'duckdb')('small JSON results in one piece', () => {
  it.each(SMALL)('are the bytes COPY writes, for %s', async (url) => {
    const plan = await planOf(url);
    const expected = await copied(plan);
    const rows = expected.split('\n').length - 1;
    expect(rows, 'the query has rows, and few enough for one piece').toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(ONE_PIECE_MAX_ROWS);
    // The engine's lines, joined, are COPY's file byte for byte (types, escapes, order).
    const lines = await engineSql(t.store).all<{ line: string }>(onePieceSql(plan.sql), plan.params);
    expect(lines.map((l) => l.line).join('')).toBe(expected);
    expect(await streamed(plan, true)).toEqual({ body: expected, rows });
  });

  it('streams a result with more rows than one piece takes through the fifo, with the same bytes and count', async () => {
    const plan = await planOf('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23913599');
    const expected = await copied(plan);
    const rows = expected.split('\n').length - 1;
    expect(rows).toBeGreaterThan(ONE_PIECE_MAX_ROWS);
    expect(await streamed(plan, true)).toEqual({ body: expected, rows });
  });

  it('answers an empty result as no bytes and no rows', async () => {
    const plan = await planOf(`/v1/evm/erc20/events/transfer?${ETH}&token=USDT&min_amount=1000000000000`);
    expect(await copied(plan)).toBe('');
    expect(await streamed(plan, true)).toEqual({ body: '', rows: 0 });
  });
});
