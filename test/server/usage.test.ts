/**
 * GET /v1/usage against the embedded ledger: its figures are the ledger's
 * (usage_charges rows of the key and month), the plan's, and the metering
 * headers'; it is free, counts against the per-minute limit, and rejects bad
 * parameters like any route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKey } from '../../src/metering/keys.ts';
import type { Store } from '../../src/store/types.ts';
import { ledgerRows } from '../helpers/engineSql.ts';
import { createDemoStore, createMeteredApp, meteringOf, plans, SMALL_QUERY, TestClock, type MeteredApp } from '../helpers/metered.ts';

const BIGGER_QUERY = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23910750';

let store: Store;
let m: MeteredApp;
const clock = new TestClock(Date.parse('2025-12-10T12:00:10Z'));

beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, {
    plans: plans({ metered: { requests_per_minute: 8, monthly_blocks: 10_000, concurrent_requests: 4 }, open: { requests_per_minute: null, monthly_blocks: null } }),
    clock,
  });
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

async function ledgerOf(key: string, period: string) {
  return ledgerRows(store, (await findKey(store, key))!.id, period);
}

describe('GET /v1/usage', () => {
  it('reports the plan, the month so far and the latest charges exactly as the ledger holds them', async () => {
    const key = await m.newKey('metered');
    const ids: string[] = [];
    for (const q of [SMALL_QUERY, BIGGER_QUERY, SMALL_QUERY]) {
      clock.ms += 1_000;
      const r = await m.get(q, key);
      expect(r.statusCode).toBe(200);
      ids.push(String(r.headers['x-request-id']));
    }
    // Not charged: a 400 and a discovery call.
    expect((await m.get('/v1/evm/erc20/events/transfer?network=ETH', key)).statusCode).toBe(400);
    expect((await m.get('/v1/protocols', key)).statusCode).toBe(200);

    const r = await m.get('/v1/usage', key);
    expect(r.statusCode).toBe(200);
    const body = JSON.parse(r.body);
    const ledger = await ledgerOf(key, '2025-12');
    const used = ledger.reduce((s, c) => s + c.cost, 0);
    expect(used).toBe(100 + 750 + 100);
    expect(body).toEqual({
      plan: 'metered',
      requests_per_minute: 8,
      monthly_blocks: 10_000,
      concurrent_requests: 4,
      month: '2025-12',
      blocks_used: used,
      blocks_left: 10_000 - used,
      requests_charged: ledger.length,
      requests_this_minute: 6,
      resets_at: '2026-01-01T00:00:00Z',
      last_charges: ledger.map((c) => ({ request_id: c.request_id, endpoint: '/v1/evm/erc20/events/transfer', cost: c.cost, admitted_at: expect.any(String), charged_at: expect.any(String) })),
    });
    // Newest first, and they are the requests' own ids.
    expect(body.last_charges.map((c: { request_id: string }) => c.request_id)).toEqual([...ids].reverse());
    expect(body.last_charges[0].admitted_at).toBe('2025-12-10T12:00:13Z');
    // Free, and the same budget the headers show.
    expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': body.blocks_left, 'x-ratelimit-limit': 8 });
    expect(await m.usage(key)).toEqual([expect.objectContaining({ period: '2025-12', blocks: body.blocks_used, requests: body.requests_charged })]);
  });

  it('lists as many charges as asked, and none with charges=0', async () => {
    const key = await m.newKey('open');
    for (let i = 0; i < 3; i++) expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    const two = JSON.parse((await m.get('/v1/usage?charges=2', key)).body);
    expect(two.last_charges).toHaveLength(2);
    expect(two).toMatchObject({ plan: 'open', requests_per_minute: null, monthly_blocks: null, blocks_left: null, blocks_used: 300, requests_charged: 3, requests_this_minute: 0 });
    expect(JSON.parse((await m.get('/v1/usage?charges=0', key)).body).last_charges).toEqual([]);
  });

  it('counts against the per-minute limit like any /v1 call', async () => {
    clock.set('2025-12-10T12:05:00Z');
    const key = await m.newKey('metered');
    for (let i = 0; i < 8; i++) expect((await m.get('/v1/usage', key)).statusCode).toBe(200);
    const limited = await m.get('/v1/usage', key);
    expect(limited.statusCode).toBe(429);
    expect(JSON.parse(limited.body)).toMatchObject({ code: 'rate_limited' });
  });

  it('a new month starts at zero with the previous charges out of the list', async () => {
    clock.set('2025-12-20T00:00:00Z');
    const key = await m.newKey('metered');
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    clock.set('2026-01-01T00:00:00Z');
    const body = JSON.parse((await m.get('/v1/usage', key)).body);
    expect(body).toMatchObject({ month: '2026-01', blocks_used: 0, blocks_left: 10_000, requests_charged: 0, last_charges: [], resets_at: '2026-02-01T00:00:00Z' });
  });

  it('rejects unknown parameters and out-of-range counts with 400, and a missing key with 401', async () => {
    clock.set('2026-01-02T00:00:00Z');
    const key = await m.newKey('open');
    const unknown = await m.get('/v1/usage?chargez=3', key);
    expect(unknown.statusCode).toBe(400);
    expect(JSON.parse(unknown.body)).toMatchObject({ code: 'unknown_parameter' });
    for (const bad of ['charges=51', 'charges=-1', 'charges=many']) {
      const r = await m.get(`/v1/usage?${bad}`, key);
      expect(r.statusCode, bad).toBe(400);
      expect(JSON.parse(r.body).error, bad).toMatch(/charges/);
    }
    const anonymous = await m.app.inject({ method: 'GET', url: '/v1/usage' });
    expect(anonymous.statusCode).toBe(401);
  });
});
