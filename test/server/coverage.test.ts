/** GET /v1/coverage: what is queryable, derived from the catalog and the coverage the store records. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry } from '../../src/catalog/coverage.ts';
import { recordChainState } from '../../src/store/coverage.ts';
import { writeChainBatch } from '../helpers/engineSql.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const coverage = async (query = '') => {
  const res = await t.get(`/v1/coverage${query}`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['x-request-cost']).toBe('0');
  return (res.json() as { coverage: CoverageEntry[] }).coverage;
};

describe('GET /v1/coverage', () => {
  it('lists every served dataset the demo filled, with block ranges that answer queries', async () => {
    const all = await coverage();
    const erc20 = all.find((e) => e.dataset === 'evm/erc20/transfer' && e.network === 'ETH')!;
    expect(erc20).toMatchObject({ family: 'evm', protocol: 'erc20', event: 'transfer', unit: 'block', gaps: [] });
    expect(erc20.ranges).toHaveLength(1);
    const r = erc20.ranges[0]!;
    // The demo's window starts 2025-12-01; its coverage starts one block before it.
    expect(r.time_from).toMatch(/^2025-1(1-30T23|2-01T00):/);
    expect(erc20.newest).toEqual({ block: r.to, time: r.time_to });
    expect(erc20.last_advanced).not.toBeNull();
    // What coverage promises is queryable: its last 10 blocks answer 200.
    const res = await t.get(`/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${r.to - 10}&block_end=${r.to}`);
    expect(res.statusCode).toBe(200);
    // …and one block past it is refused.
    const past = await t.get(`/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${r.to - 10}&block_end=${r.to + 1}`);
    expect(past.statusCode).toBe(400);
    expect(all.some((e) => e.family === 'exchange' && e.unit === 'ms' && typeof e.token === 'string')).toBe(true);
  });

  it('filters by family, protocol and network', async () => {
    const dex = await coverage('?family=evm&protocol=dex_v3&network=arb');
    expect(dex.length).toBeGreaterThan(0);
    for (const e of dex) expect(e).toMatchObject({ family: 'evm', protocol: 'dex_v3', network: 'ARB' });
    expect(await coverage('?protocol=venue_a&network=BTC')).toEqual(expect.arrayContaining([expect.objectContaining({ token: 'BTC', protocol: 'venue_a' })]));
  });

  it('shows gaps, the confirmation depth and the newest block once ingestion records them', async () => {
    const covers = ['evm/native/transfer'];
    await writeChainBatch(t.store, { network: 'OP', lo: 1_000, hi: 1_099, tables: [], covers }, async () => undefined);
    await writeChainBatch(t.store, { network: 'OP', lo: 1_200, hi: 1_299, tables: [], covers }, async () => undefined);
    await recordChainState(t.store, 'OP', { confirmations: 12, head: 1_311 });
    const [op] = (await coverage('?protocol=native&network=OP')).filter((e) => e.ranges[0]!.from === 1_000);
    expect(op).toMatchObject({ gaps: [{ from: 1_100, to: 1_199 }], newest: { block: 1_299, time: null }, confirmations: 12 });
  });

  it('refuses unknown parameters and values, naming the accepted ones', async () => {
    const bad = await t.get('/v1/coverage?family=solana');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'family' });
    const unknown = await t.get('/v1/coverage?chain=ETH');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'unknown_parameter' });
    expect((await t.app.inject({ method: 'GET', url: '/v1/coverage' })).statusCode).toBe(401);
  });
});
