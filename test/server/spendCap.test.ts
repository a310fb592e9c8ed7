/**
 * max_cost, chainq's spend cap: a request priced above it is refused with 400
 * cost_over_limit (cost and cap stated) before it runs, nothing is charged or
 * held; at or under the cap it runs and is charged as usual. The cost
 * estimate answers the same, and every data route takes the parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import type { Store } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, meteringOf, plans, SMALL_COST, SMALL_QUERY, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: plans({ capped: { requests_per_minute: null, monthly_blocks: 10_000 } }) });
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

/** 2,000 ETH blocks: costs 2,000. */
const BIG_QUERY = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23912000';

describe('max_cost', () => {
  it('is a parameter of every data route, raw and aggregate', () => {
    for (const r of dataRoutes()) expect(r.params.max_cost, r.path).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('refuses a query that costs more with 400 cost_over_limit naming cost and cap, and charges nothing', async () => {
    const key = await m.newKey('capped');
    const r = await m.get(`${BIG_QUERY}&max_cost=1999`, key);
    expect(r.statusCode).toBe(400);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ status: 'error', code: 'cost_over_limit', cost: 2000, max_cost: 1999 });
    expect(body.error).toContain('2000');
    expect(body.error).toContain('max_cost=1999');
    expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 10_000 });
    expect(await m.usage(key)).toEqual([]);
  });

  it('runs and charges a query that costs exactly the cap or less', async () => {
    const key = await m.newKey('capped');
    const at = await m.get(`${BIG_QUERY}&max_cost=2000`, key);
    expect(at.statusCode, at.body).toBe(200);
    expect(meteringOf(at)['x-request-cost']).toBe(2000);
    const under = await m.get(`${SMALL_QUERY}&max_cost=5000`, key);
    expect(under.statusCode).toBe(200);
    expect(meteringOf(under)['x-request-cost']).toBe(SMALL_COST);
    expect((await m.usage(key))[0]!.blocks).toBe(2000 + SMALL_COST);
  });

  it('applies to aggregates, venues and link mode, on the cost each would be charged', async () => {
    const key = await m.newKey('capped');
    const agg = await m.get('/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDC&block_start=23910000&block_end=23912000&group_by=time&period=1h&max_cost=999', key);
    expect(JSON.parse(agg.body)).toMatchObject({ code: 'cost_over_limit', cost: 1000, max_cost: 999 });
    const venue = await m.get('/v1/exchange/venue_a/raw_trades?token=BTC&since=2025-12-01T01:00:00Z&until=2025-12-01T03:00:00Z&max_cost=10', key);
    expect(JSON.parse(venue.body)).toMatchObject({ code: 'cost_over_limit', cost: 1000, max_cost: 10 });
    const link = await m.get(`${BIG_QUERY}&format=csv&link=true&max_cost=100`, key);
    expect(JSON.parse(link.body)).toMatchObject({ code: 'cost_over_limit', cost: 2000, max_cost: 100 });
    expect(await m.usage(key)).toEqual([]);
  });

  it('the cost estimate answers what the request would: the same 400 over the cap, the price under it', async () => {
    const key = await m.newKey('capped');
    const over = await m.estimate(`${BIG_QUERY}&max_cost=10`, key);
    expect(over.statusCode).toBe(400);
    expect(JSON.parse(over.body)).toMatchObject({ code: 'cost_over_limit', cost: 2000, max_cost: 10 });
    const under = await m.estimate(`${BIG_QUERY}&max_cost=2000`, key);
    expect(under.statusCode).toBe(200);
    expect(JSON.parse(under.body).cost).toBe(2000);
  });

  it('rejects a cap that is not a non-negative integer', async () => {
    const key = await m.newKey('capped');
    for (const bad of ['-1', 'abc', '1.5']) {
      const r = await m.get(`${SMALL_QUERY}&max_cost=${bad}`, key);
      expect(r.statusCode, bad).toBe(400);
      expect(JSON.parse(r.body).code, bad).toBe('invalid_parameter');
    }
  });
});
