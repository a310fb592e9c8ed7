/**
 * `aggregate_schema` describes exactly what the aggregate endpoints return:
 * for every event type of every protocol, the columns derived from the
 * schema alone equal the columns of a real response, in order.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { createApp } from '../../src/server/createApp.ts';
import type { Store } from '../../src/store/types.ts';
import { mirrorTables } from '../helpers/engineSql.ts';
import { createTestStores } from '../helpers/testApp.ts';
import { BTC0, TRON0, TRON_BTC_TABLES, servedWithTronBtc, writeTronBtcRows } from '../helpers/tronBtcRows.ts';

let store: Store;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  const stores = await createTestStores();
  store = stores.served;
  // Bitcoin rows (the demo has none), written in the DuckDB oracle and mirrored into the served store.
  await writeTronBtcRows(stores.oracle);
  await mirrorTables(store, stores.oracle, TRON_BTC_TABLES);
  app = await createApp({ store, catalog: servedWithTronBtc() });
  key = (await createKey(store, { plan: 'unlimited' })).key;
});
afterAll(async () => {
  await app?.close();
  await store?.close();
});

const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

interface SchemaEntry {
  columns: { source_column: string; aggregation: string; output_column: string }[];
  pivot_columns?: { value_column: string; key_column: string; aggregation: string; suffix: string; output_pattern: string }[];
  always_included: string[];
  bucket_columns: Record<'time' | 'block_number', string[]>;
  group_columns?: string[];
  value_columns?: string[];
}

/** The request that exercises each protocol, and the tokens its pivots expand over (the pool, as the request names it). */
const PROTOCOLS: Record<string, { qs: string; events: string[]; pivotTokens?: string[] }> = {
  'evm/erc20': { qs: 'network=ETH&block_start=23910000&block_end=23913599&token=USDC', events: ['transfer'] },
  'evm/native': { qs: 'network=ETH&block_start=23910000&block_end=23913599', events: ['transfer'] },
  'evm/lending_v3': { qs: 'network=ETH&block_start=23910000&block_end=23913599', events: ['deposit', 'withdraw', 'borrow', 'repay', 'flashloan', 'liquidation'] },
  'evm/staking': { qs: 'network=ETH&block_start=23910000&block_end=23913599', events: ['deposit', 'withdrawal_request', 'withdrawal_claimed', 'l2_deposit', 'l2_withdrawal_request'] },
  'evm/dex_v3': { qs: 'network=ETH&block_start=23910000&block_end=23913599&symbol0=WETH&symbol1=USDC&fee=500', events: ['swap', 'deposit', 'withdraw', 'collect'], pivotTokens: ['WETH', 'USDC'] },
  'tron/trc20': { qs: `token=USDT&block_start=${TRON0}&block_end=${TRON0 + 5999}`, events: ['transfer'] },
  'tron/native': { qs: `block_start=${TRON0}&block_end=${TRON0 + 5999}`, events: ['transfer'] },
  'btc/native': { qs: `block_start=${BTC0}&block_end=${BTC0 + 399}`, events: ['transfer'] },
};

/** The L2 staking events live on L2 networks. */
const qsFor = (protocol: string, event: string) => (event.startsWith('l2_') ? 'network=BASE&block_start=38900000&block_end=38909999' : PROTOCOLS[protocol]!.qs);

/** The output columns a client derives from the schema alone (docs/aggregates.md, "aggregate_schema"). */
function derive(s: SchemaEntry, groupBy: 'time' | 'block_number', withValue: boolean, tokens: readonly string[]): string[] {
  const pivots: string[] = [];
  const patterns = [...new Set((s.pivot_columns ?? []).map((p) => p.output_pattern))];
  for (const token of tokens) for (const pattern of patterns) pivots.push(pattern.replace('<TOKEN>', token));
  return [...s.bucket_columns[groupBy], ...(s.group_columns ?? []), ...pivots, ...s.columns.map((c) => c.output_column), ...s.always_included, ...(withValue ? (s.value_columns ?? []) : [])];
}

describe('aggregate_schema matches the aggregate responses', () => {
  it('lists exactly the protocols of /v1/protocols', async () => {
    const res = await get('/v1/protocols');
    expect([...(res.json() as string[])].sort()).toEqual(Object.keys(PROTOCOLS).sort());
  });

  for (const [protocol, p] of Object.entries(PROTOCOLS)) {
    it(`${protocol}: every event type, both groupings, with and without values`, async () => {
      const res = await get(`/v1/${protocol}/aggregate_schema`);
      expect(res.statusCode).toBe(200);
      const schema = res.json() as Record<string, SchemaEntry>;
      expect(Object.keys(schema)).toEqual(p.events);
      for (const [event, s] of Object.entries(schema)) {
        expect(s.always_included).toContain('count');
        for (const c of s.pivot_columns ?? []) expect(c.output_pattern).toContain('<TOKEN>');
        for (const c of s.columns) expect(Object.keys(c)).toEqual(['source_column', 'aggregation', 'output_column']);
        const family = protocol.split('/')[0];
        for (const groupBy of ['time', 'block_number'] as const) {
          for (const withValue of family === 'evm' ? [false, true] : [false]) {
            const url = `/v1/${protocol}/events/${event}/aggregate?${qsFor(protocol, event)}&group_by=${groupBy}&period=${groupBy === 'time' ? '1h' : '1000'}${withValue ? '&with_value=true' : ''}`;
            const out = await get(url);
            expect(out.statusCode, `${url}: ${out.body}`).toBe(200);
            const rows = (out.json() as { events: Record<string, unknown>[] }).events;
            expect(rows.length, `${url} has rows`).toBeGreaterThan(0);
            expect(Object.keys(rows[0]!), url).toEqual(derive(s, groupBy, withValue, p.pivotTokens ?? []));
            // CSV announces the same columns in its header, even for an empty result.
            const csv = await get(`${url}&format=csv`);
            expect(csv.body.split('\n')[0]!.split(','), `${url} csv`).toEqual(derive(s, groupBy, withValue, p.pivotTokens ?? []));
          }
        }
      }
    });
  }

  it('Tron trc20 names its aggregate columns and its group columns', async () => {
    const schema = (await get('/v1/tron/trc20/aggregate_schema')).json() as Record<string, SchemaEntry>;
    expect(schema.transfer).toEqual({
      columns: [{ source_column: 'amount', aggregation: 'sum', output_column: 'agg_amount' }],
      always_included: ['count'],
      bucket_columns: { time: ['time'], block_number: ['block_number'] },
      group_columns: ['token'],
    });
  });
});
