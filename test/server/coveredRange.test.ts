/** X-Chainq-Covered-Range: every data answer names the range it is complete for, in blocks or time, with its network or venue token. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const ETH0 = DEMO_START_BLOCKS.ETH!;

describe('X-Chainq-Covered-Range', () => {
  it('states a block range with both ends included, and the network', async () => {
    for (const format of ['json', 'csv', 'parquet']) {
      const r = await t.get(`/v1/evm/erc20/events/transfer?network=eth&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 100}&format=${format}`);
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-chainq-covered-range']).toBe(`blocks=${ETH0}-${ETH0 + 100}; network=ETH`);
    }
  });

  it('states a time range as ISO 8601 since/until (until excluded), on aggregates and Tron too', async () => {
    const agg = await t.get('/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDT&since=2025-12-01T01:00:00Z&until=1764554400&group_by=time&period=1h');
    expect(agg.statusCode).toBe(200);
    expect(agg.headers['x-chainq-covered-range']).toBe('time=2025-12-01T01:00:00Z/2025-12-01T02:00:00Z; network=ETH');
    const tron = await t.get('/v1/tron/native/events/transfer?since=2025-12-01T01:00:00Z&until=2025-12-01T01:10:00Z');
    expect(tron.headers['x-chainq-covered-range']).toBe('time=2025-12-01T01:00:00Z/2025-12-01T01:10:00Z; network=TRON');
  });

  it('states the venue token on venue answers, and is absent from errors', async () => {
    const v = await t.get('/v1/exchange/venue_a/raw_trades?token=btc&since=2025-12-01T01:00:00Z&until=2025-12-01T02:00:00Z');
    expect(v.statusCode).toBe(200);
    expect(v.headers['x-chainq-covered-range']).toBe('time=2025-12-01T01:00:00Z/2025-12-01T02:00:00Z; token=BTC');
    const bad = await t.get(`/v1/evm/erc20/events/transfer?network=ETH&token=NOPE&block_start=${ETH0}&block_end=${ETH0 + 100}`);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['x-chainq-covered-range']).toBeUndefined();
  });
});
