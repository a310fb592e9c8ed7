/**
 * The API served from ClickHouse (chDB in process, through the same
 * `@clickhouse/client` code as a server) answers what the API served from
 * DuckDB answers: the demo store is built in DuckDB, moved with `chainq
 * copy`'s code, and the same requests go to both apps. JSON is compared byte
 * for byte; CSV row by row and value by value.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey, findKey, listKeys, revokeKey, setKeyPlan } from '../../src/metering/keys.ts';
import { createApp } from '../../src/server/createApp.ts';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../src/store/createStore.ts';
import { createTestStore } from '../helpers/testApp.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;

interface Served {
  store: Store;
  app: FastifyInstance;
  key: string;
}

let duck: Served;
let click: Served;

async function serve(engine: 'duckdb' | 'chdb'): Promise<Served> {
  const store = await createTestStore(undefined, engine);
  const app = await createApp({ store });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return { store, app, key };
}

beforeAll(async () => {
  duck = await serve('duckdb');
  click = await serve('chdb');
});

afterAll(async () => {
  for (const s of [duck, click]) {
    await s?.app.close();
    await s?.store.close();
  }
});

const get = (s: Served, url: string) => s.app.inject({ method: 'GET', url, headers: { 'x-api-key': s.key } });

describe('the API on chDB', () => {
  it('serves the catalog, coverage and token directory as on DuckDB', async () => {
    for (const url of ['/v1/protocols', '/v1/tokens', '/v1/coverage']) {
      const [a, b] = [await get(duck, url), await get(click, url)];
      expect(b.statusCode, url).toBe(a.statusCode);
      if (url === '/v1/coverage') {
        // last_advanced is when each store was filled.
        const strip = (body: string) => JSON.stringify(JSON.parse(body), (k, v) => (k === 'last_advanced' ? undefined : v));
        expect(strip(b.body)).toBe(strip(a.body));
      } else {
        expect(b.body, url).toBe(a.body);
      }
    }
  });

  it.each([
    `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 50}&token=USDT`,
    `/v1/evm/erc20/events/transfer/aggregate?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 600}&token=USDT&group_by=time&period=1h`,
    `/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01T00:00:00Z&until=2025-12-01T03:00:00Z&window=15m&format=csv`,
  ])('answers %s with the same rows and cost', async (url) => {
    const [a, b] = [await get(duck, url), await get(click, url)];
    expect(b.statusCode, b.body.slice(0, 300)).toBe(a.statusCode);
    expect(b.headers['x-cost'] ?? b.headers['x-blocks-charged']).toBe(a.headers['x-cost'] ?? a.headers['x-blocks-charged']);
    expect(b.body.length).toBeGreaterThan(100);
    if (String(a.headers['content-type']).startsWith('text/csv')) {
      // The same rows and values; ClickHouse quotes every CSV text field and writes whole floats
      // without ".0" (docs/storage.md, "Not yet on ClickHouse").
      const rows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];
      const numeric = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v !== '' && !Number.isNaN(Number(v)) ? Number(v) : v]));
      expect(rows(b.body).map(numeric)).toEqual(rows(a.body).map(numeric));
    } else {
      expect(b.body).toBe(a.body);
    }
  });

  it('refuses an uncovered range with the same error', async () => {
    const url = `/v1/evm/erc20/events/transfer?network=ETH&block_start=1&block_end=20&token=USDT`;
    const [a, b] = [await get(duck, url), await get(click, url)];
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.json()).toEqual(a.json());
  });

  it('keeps keys in ClickHouse: create, find, move to another plan, revoke', async () => {
    const { key, record } = await createKey(click.store, { plan: 'free', name: 'ch' });
    expect((await findKey(click.store, key))?.id).toBe(record.id);
    expect(await setKeyPlan(click.store, record.id, 'pro')).toBe(1);
    expect((await findKey(click.store, key))?.plan).toBe('pro');
    expect(await revokeKey(click.store, record.prefix)).toBe(1);
    expect(await findKey(click.store, key)).toBeNull();
    const listed = (await listKeys(click.store)).find((k) => k.id === record.id);
    expect(listed?.revokedAt).toBeInstanceOf(Date);
    expect(listed).not.toHaveProperty('keyHash');
  });
});
