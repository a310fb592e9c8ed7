/** A download link is charged exactly like the query it stands for, once, and a refused link costs nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, meteringOf, plans, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: plans({ big: { requests_per_minute: null, monthly_blocks: 1_000_000 } }) });
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

const QUERY = '/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=23910000&block_end=23912500&format=csv';

describe('link mode and metering', () => {
  it('charges a link like the plain query, and the download itself costs nothing', async () => {
    const key = await m.newKey('big');
    const plain = await m.get(QUERY, key);
    expect(plain.statusCode).toBe(200);
    const cost = meteringOf(plain)['x-request-cost'];
    expect(cost).toBe(2500);
    const before = meteringOf(plain)['x-ratelimit-remaining'];

    const link = await m.get(`${QUERY}&link=true`, key);
    expect(link.statusCode, link.body).toBe(200);
    expect(meteringOf(link)['x-request-cost']).toBe(cost);
    expect(meteringOf(link)['x-ratelimit-remaining']).toBe(before - cost);

    const url = new URL((link.json() as { url: string }).url);
    const download = await m.app.inject({ url: url.pathname });
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe(plain.body);

    const after = await m.get(QUERY, key);
    expect(meteringOf(after)['x-ratelimit-remaining']).toBe(before - 2 * cost);
  });

  it('charges nothing for a link refused with JSON', async () => {
    const key = await m.newKey('big');
    const refused = await m.get(`${QUERY.replace('format=csv', 'format=json')}&link=true`, key);
    expect(refused.statusCode).toBe(400);
    expect(meteringOf(refused)['x-request-cost']).toBe(0);
    expect(meteringOf(refused)['x-ratelimit-remaining']).toBe(1_000_000);
  });
});
