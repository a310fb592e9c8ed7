/**
 * The server with the Redis backend, in process with an injectable clock:
 * the rate-limit reset and the monthly rollover happen in Redis too, and a
 * Redis that goes away fails requests closed (503, nothing run or charged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBackend } from '../../src/metering/redisBackend.ts';
import type { Store } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, meteringOf, plans, SMALL_QUERY, TestClock, type MeteredApp } from '../helpers/metered.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';

let store: Store;
let redis: RedisServer;
let m: MeteredApp;
const clock = new TestClock(Date.parse('2025-11-30T23:59:10Z'));

beforeAll(async () => {
  store = await createDemoStore();
  redis = await startRedis();
  m = await createMeteredApp(store, {
    plans: plans({ p: { requests_per_minute: 3, monthly_blocks: 250 } }),
    clock,
    backend: await createRedisBackend({ url: redis.url }),
  });
});
afterAll(async () => {
  await m?.close();
  await redis?.stop();
  await store?.close();
});

describe('metering in Redis', () => {
  it('the per-minute window and the monthly budget both reset at midnight UTC on the 1st', async () => {
    const key = await m.newKey('p');
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    const spent = await m.get(SMALL_QUERY, key);
    expect(spent.statusCode).toBe(403);
    expect(JSON.parse(spent.body)).toMatchObject({ remaining: 50, cost: 100 });
    const limited = await m.get(SMALL_QUERY, key);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('50');

    clock.set('2025-12-01T00:00:00Z');
    const fresh = await m.get(SMALL_QUERY, key);
    expect(fresh.statusCode).toBe(200);
    expect(meteringOf(fresh)).toMatchObject({ 'x-ratelimit-remaining': 150, 'x-request-cost': 100, 'x-ratelimit-reset': 60 });
    expect(await m.usage(key)).toEqual([expect.objectContaining({ period: '2025-11', requests: 2, blocks: 200 }), expect.objectContaining({ period: '2025-12', requests: 1, blocks: 100 })]);
  });

  it('GET /v1/usage reads the month and the latest charges from Redis', async () => {
    clock.set('2025-12-01T00:10:00Z');
    const key = await m.newKey('p');
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      clock.ms += 1_000;
      const r = await m.get(SMALL_QUERY, key);
      expect(r.statusCode).toBe(200);
      ids.push(String(r.headers['x-request-id']));
    }
    const r = await m.get('/v1/usage', key);
    expect(r.statusCode).toBe(200);
    const body = JSON.parse(r.body);
    const [month] = await m.usage(key);
    expect(month).toMatchObject({ period: '2025-12', blocks: 200, requests: 2 });
    expect(body).toMatchObject({
      plan: 'p',
      requests_per_minute: 3,
      monthly_blocks: 250,
      month: '2025-12',
      blocks_used: month!.blocks,
      blocks_left: 50,
      requests_charged: month!.requests,
      requests_this_minute: 3,
      resets_at: '2026-01-01T00:00:00Z',
    });
    expect(body.last_charges.map((c: { request_id: string }) => c.request_id)).toEqual([...ids].reverse());
    expect(body.last_charges[0]).toMatchObject({ endpoint: '/v1/evm/erc20/events/transfer', cost: 100, admitted_at: '2025-12-01T00:10:02Z' });
    expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 50 });
  });

  it('without Redis, requests fail closed with 503 unavailable and the headers', async () => {
    clock.set('2025-12-02T00:00:00Z');
    const key = await m.newKey('p');
    await redis.stop();
    const r = await m.get(SMALL_QUERY, key);
    expect(r.statusCode).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'unavailable' });
    meteringOf(r);
  });
});
