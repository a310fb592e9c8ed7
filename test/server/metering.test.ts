/**
 * Metering through the real server and the real store: the headers on every
 * /v1 response, the per-minute limit and its reset, the monthly budget under
 * concurrency, charging only complete successful responses, and the monthly
 * rollover, with an injectable clock.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterBackend } from '../../src/metering/backend.ts';
import { createEmbeddedBackend } from '../../src/metering/embeddedBackend.ts';
import { findKey } from '../../src/metering/keys.ts';
import type { Store } from '../../src/store/types.ts';
import { JOURNAL_FILE } from '../../src/store/journalLedger.ts';
import { chargedRequestIds } from '../helpers/engineSql.ts';
import { breakingMidStream, createDemoStore, createMeteredApp, failingEngine, meteringOf, plans, SMALL_COST, SMALL_QUERY, TestClock, type MeteredApp } from '../helpers/metered.ts';
import { TEST_ENGINE } from '../helpers/testApp.ts';

let store: Store;
beforeAll(async () => {
  store = await createDemoStore();
});
afterAll(async () => {
  await store?.close();
});

const PLANS = plans({
  tiny: { requests_per_minute: 3, monthly_blocks: 1_000 },
  roomy: { requests_per_minute: 1_000, monthly_blocks: 1_000_000 },
  race: { requests_per_minute: null, monthly_blocks: 7 * SMALL_COST + 50 },
  month: { requests_per_minute: null, monthly_blocks: 250 },
});

const usageOf = (m: MeteredApp, key: string) => m.usage(key);

describe('metering headers on every /v1 response', () => {
  let m: MeteredApp;
  let key: string;
  let broke: string;
  beforeAll(async () => {
    m = await createMeteredApp(store, { plans: PLANS, clock: new TestClock(Date.parse('2025-12-10T12:00:10Z')) });
    key = await m.newKey('roomy');
    broke = await m.newKey('tiny');
  });
  afterAll(async () => m.close());

  it('a data response carries the limit, the budget left after it, its cost and the window reset', async () => {
    const r = await m.get(SMALL_QUERY, key);
    expect(r.statusCode).toBe(200);
    expect(meteringOf(r)).toEqual({
      'x-ratelimit-limit': 1000,
      'x-ratelimit-remaining': 1_000_000 - SMALL_COST,
      'x-request-cost': SMALL_COST,
      'x-ratelimit-reset': 50,
    });
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers['retry-after']).toBeUndefined();
  });

  it('a discovery response costs 0', async () => {
    const r = await m.get('/v1/protocols', key);
    expect(r.statusCode).toBe(200);
    expect(meteringOf(r)['x-request-cost']).toBe(0);
  });

  const cases: [string, number, string, () => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>][] = [
    ['unknown parameter', 400, 'unknown_parameter', () => m.get(`${SMALL_QUERY}&block_stat=1`, key)],
    ['range over the limit', 400, 'range_too_large', () => m.get('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23930001', key)],
    ['unknown token', 400, 'unknown_token', () => m.get('/v1/evm/erc20/events/transfer?network=ETH&token=NOPE&block_start=23910000&block_end=23910100', key)],
    ['range never ingested', 400, 'invalid_range', () => m.get('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=1000&block_end=1100', key)],
    ['unknown path', 404, 'not_found', () => m.get('/v1/evm/nothing', key)],
    ['wrong method', 405, 'method_not_allowed', () => m.app.inject({ method: 'DELETE', url: '/v1/protocols', headers: { 'x-api-key': key } })],
    [
      'cost estimate as text',
      415,
      'unsupported_media_type',
      () => m.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': key, 'content-type': 'text/plain' }, payload: 'x' }),
    ],
    [
      'cost estimate without a body',
      400,
      'invalid_body',
      () => m.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: '{}' }),
    ],
  ];
  it.each(cases)('%s: %i %s, cost 0, budget untouched', async (_name, status, code, send) => {
    const before = meteringOf(await m.get('/v1/protocols', key))['x-ratelimit-remaining'];
    const r = await send();
    expect(r.statusCode).toBe(status);
    expect(JSON.parse(r.body).code).toBe(code);
    const h = meteringOf(r);
    expect(h['x-request-cost']).toBe(0);
    expect(h['x-ratelimit-remaining']).toBe(before);
    expect(h['x-ratelimit-limit']).toBe(1000);
    expect(h['x-ratelimit-reset']).toBe(50);
  });

  it('403 quota_exceeded carries the headers and says what is left and what it would cost', async () => {
    // 1,000 blocks a month; a 2,000-block query costs 2,000.
    const r = await m.get('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23912000', broke);
    expect(r.statusCode).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ status: 'error', code: 'quota_exceeded', remaining: 1000, cost: 2_000 });
    expect(meteringOf(r)).toEqual({ 'x-ratelimit-limit': 3, 'x-ratelimit-remaining': 1000, 'x-request-cost': 0, 'x-ratelimit-reset': 50 });
  });

  it('429 carries the headers and Retry-After', async () => {
    for (let i = 0; i < 2; i++) expect((await m.get('/v1/protocols', broke)).statusCode).toBe(200);
    const r = await m.get('/v1/protocols', broke);
    expect(r.statusCode).toBe(429);
    expect(r.headers['retry-after']).toBe('50');
    expect(meteringOf(r)).toEqual({ 'x-ratelimit-limit': 3, 'x-ratelimit-remaining': 1000, 'x-request-cost': 0, 'x-ratelimit-reset': 50 });
  });

  it.each([
    ['missing key', {}, 'missing_api_key'],
    ['unknown key', { 'x-api-key': 'cq_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'invalid_api_key'],
    ['malformed key', { 'x-api-key': 'hello' }, 'invalid_api_key'],
  ])('401 (%s) carries all four headers as 0: no key, no allowance', async (_name, headers, code) => {
    const r = await m.app.inject({ method: 'GET', url: SMALL_QUERY, headers });
    expect(r.statusCode).toBe(401);
    expect(JSON.parse(r.body).code).toBe(code);
    expect(meteringOf(r)).toEqual({ 'x-ratelimit-limit': 0, 'x-ratelimit-remaining': 0, 'x-request-cost': 0, 'x-ratelimit-reset': 0 });
  });

  it('401 on an unknown /v1 path too: the key is checked before the path', async () => {
    const r = await m.app.inject({ method: 'GET', url: '/v1/evm/nothing' });
    expect(r.statusCode).toBe(401);
    meteringOf(r);
  });

  it('500 from a key whose plan is not configured carries the headers', async () => {
    const orphan = await m.newKey('gold');
    const r = await m.get('/v1/protocols', orphan);
    expect(r.statusCode).toBe(500);
    expect(JSON.parse(r.body).code).toBe('internal_error');
    expect(meteringOf(r)['x-request-cost']).toBe(0);
  });

  it('unlimited plans show 2^53-1 as limit and budget', async () => {
    const free = await createMeteredApp(store, { plans: PLANS });
    try {
      const r = await free.get(SMALL_QUERY, await free.newKey('unlimited'));
      expect(meteringOf(r)).toMatchObject({ 'x-ratelimit-limit': Number.MAX_SAFE_INTEGER, 'x-ratelimit-remaining': Number.MAX_SAFE_INTEGER, 'x-request-cost': SMALL_COST });
    } finally {
      await free.close();
    }
  });

  it('the /healthz and /openapi.json endpoints outside /v1 are not metered', async () => {
    const r = await m.app.inject({ method: 'GET', url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('per-minute rate limit: fixed one-minute windows aligned to the UTC minute', () => {
  let m: MeteredApp;
  const clock = new TestClock(Date.parse('2025-12-10T12:00:10Z'));
  beforeAll(async () => {
    m = await createMeteredApp(store, { plans: PLANS, clock });
  });
  afterAll(async () => m.close());

  it('counts discovery, cost estimates and invalid requests; the next one gets 429 until the minute ends', async () => {
    clock.set('2025-12-10T12:00:10Z');
    const key = await m.newKey('tiny');
    expect((await m.get('/v1/protocols', key)).statusCode).toBe(200);
    expect((await m.estimate(SMALL_QUERY, key)).statusCode).toBe(200);
    expect((await m.get(`${SMALL_QUERY}&bogus=1`, key)).statusCode).toBe(400);
    const limited = await m.get(SMALL_QUERY, key);
    expect(limited.statusCode).toBe(429);
    expect(JSON.parse(limited.body)).toMatchObject({ code: 'rate_limited', limit: 3, retry_after: 50 });
    expect(limited.headers['retry-after']).toBe('50');

    clock.set('2025-12-10T12:00:59.400Z');
    const last = await m.get('/v1/protocols', key);
    expect(last.statusCode).toBe(429);
    expect(last.headers['retry-after']).toBe('1');

    clock.set('2025-12-10T12:01:00Z');
    const fresh = await m.get(SMALL_QUERY, key);
    expect(fresh.statusCode).toBe(200);
    expect(meteringOf(fresh)['x-ratelimit-reset']).toBe(60);
    // The rejected data request was not charged; the one after the reset was.
    expect(await usageOf(m, key)).toEqual([expect.objectContaining({ period: '2025-12', requests: 1, blocks: SMALL_COST })]);
  });

  it('each key has its own window', async () => {
    clock.set('2025-12-10T13:00:00Z');
    const a = await m.newKey('tiny');
    const b = await m.newKey('tiny');
    for (let i = 0; i < 3; i++) expect((await m.get('/v1/protocols', a)).statusCode).toBe(200);
    expect((await m.get('/v1/protocols', a)).statusCode).toBe(429);
    expect((await m.get('/v1/protocols', b)).statusCode).toBe(200);
  });

  it('keys without a per-minute limit are never rate limited', async () => {
    clock.set('2025-12-10T14:00:00Z');
    const key = await m.newKey('unlimited');
    const codes = await Promise.all(Array.from({ length: 20 }, () => m.get('/v1/protocols', key).then((r) => r.statusCode)));
    expect(new Set(codes)).toEqual(new Set([200]));
  });
});

describe('monthly budget', () => {
  let m: MeteredApp;
  const clock = new TestClock(Date.parse('2025-12-10T12:00:00Z'));
  beforeAll(async () => {
    m = await createMeteredApp(store, { plans: PLANS, clock });
  });
  afterAll(async () => m.close());

  it('race: of 50 concurrent requests with budget for 7, exactly 7 succeed and 43 get 403; usage never exceeds the budget', async () => {
    const key = await m.newKey('race');
    const responses = await Promise.all(Array.from({ length: 50 }, () => m.get(SMALL_QUERY, key)));
    const ok = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 403);
    expect(ok).toHaveLength(7);
    expect(refused).toHaveLength(43);
    for (const r of refused) {
      expect(JSON.parse(r.body)).toMatchObject({ code: 'quota_exceeded', remaining: 50, cost: SMALL_COST });
      expect(meteringOf(r)['x-request-cost']).toBe(0);
    }
    for (const r of ok) expect(JSON.parse(r.body).status).toBe('success');
    const usage = await usageOf(m, key);
    expect(usage).toEqual([expect.objectContaining({ requests: 7, blocks: 7 * SMALL_COST })]);
    expect(usage[0]!.blocks).toBeLessThanOrEqual(PLANS.get('race')!.monthlyBlocks!);
    // The store agrees: one ledger row per successful response, each with its request id.
    const ids = ok.map((r) => String(r.headers['x-request-id'])).sort();
    expect((await chargedRequestIds(store, ids)).sort()).toEqual(ids);
  });

  it('the cost estimate is free and does not hold budget', async () => {
    const key = await m.newKey('month');
    for (let i = 0; i < 5; i++) {
      const r = await m.estimate(SMALL_QUERY, key);
      expect(JSON.parse(r.body)).toMatchObject({ cost: SMALL_COST, quota_remaining: 250, quota_remaining_after: 150 });
      expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 250 });
    }
    expect(await usageOf(m, key)).toEqual([]);
  });

  it('rolls over at 00:00 UTC on the 1st: a spent budget is whole again, and usage is kept per month', async () => {
    const key = await m.newKey('month');
    clock.set('2025-11-30T23:59:58Z');
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    clock.set('2025-11-30T23:59:59.999Z');
    const spent = await m.get(SMALL_QUERY, key);
    expect(spent.statusCode).toBe(403);
    expect(JSON.parse(spent.body)).toMatchObject({ remaining: 50, cost: SMALL_COST });
    expect(JSON.parse(spent.body).error).toContain('2025-12-01T00:00:00.000Z');

    clock.set('2025-12-01T00:00:00Z');
    const next = await m.get(SMALL_QUERY, key);
    expect(next.statusCode).toBe(200);
    expect(meteringOf(next)['x-ratelimit-remaining']).toBe(150);
    expect(await usageOf(m, key)).toEqual([expect.objectContaining({ period: '2025-11', requests: 2, blocks: 200 }), expect.objectContaining({ period: '2025-12', requests: 1, blocks: 100 })]);
  });

  it('a restart reads the budget back from the store', async () => {
    clock.set('2025-12-15T00:00:00Z');
    const key = await m.newKey('month');
    expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    const again = await createMeteredApp(store, { plans: PLANS, clock });
    try {
      expect(meteringOf(await again.get('/v1/protocols', key))['x-ratelimit-remaining']).toBe(150);
    } finally {
      await again.close();
    }
  });
});

describe('charged once, only for a complete successful data response', () => {
  it('an engine failure after the hold answers 500 and charges nothing', async () => {
    const m = await createMeteredApp(failingEngine(store), { plans: PLANS });
    try {
      const key = await m.newKey('month');
      const r = await m.get(SMALL_QUERY, key);
      expect(r.statusCode).toBe(500);
      expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 250 });
      // The hold was given back: the whole budget is available again.
      expect(meteringOf(await m.get('/v1/protocols', key))['x-ratelimit-remaining']).toBe(250);
      expect(await usageOf(m, key)).toEqual([]);
    } finally {
      await m.close();
    }
  });

  it('a small JSON result, produced whole, is charged before its bytes: a charge that cannot be recorded answers 503 (DuckDB) or cuts the stream (ClickHouse), and charges nothing', async () => {
    const backend = createEmbeddedBackend(store);
    let commits = 0;
    const failingCommit: MeterBackend = {
      ...backend,
      commit: async () => {
        commits++;
        throw new Error('ledger unavailable');
      },
      // Where the store's ledger writes a small query's charge ahead (a journal on disk), its confirmation fails the same way.
      commitAhead: (r) => {
        const ahead = backend.commitAhead?.(r);
        if (!ahead) return null;
        return {
          ...ahead,
          confirm: async () => {
            commits++;
            throw new Error('ledger unavailable');
          },
        };
      },
    };
    const m = await createMeteredApp(store, { plans: PLANS, backend: failingCommit });
    try {
      const key = await m.newKey('month');
      if (store.engine === 'duckdb') {
        const r = await m.get(SMALL_QUERY, key);
        expect(r.statusCode).toBe(503);
        expect(JSON.parse(r.body)).toMatchObject({ status: 'error', code: 'unavailable' });
        expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 250 });
      } else {
        // ClickHouse streams every result: the body is cut off before its end instead.
        await expect(m.get(SMALL_QUERY, key)).rejects.toThrow(/destroyed before completion/);
      }
      expect(commits).toBe(1);
      expect(await usageOf(m, key)).toEqual([]);
    } finally {
      await m.close();
    }
  });

  it('a response that breaks off mid-stream (engine error after the first bytes) is not charged', async () => {
    const breaking = breakingMidStream(store);
    const m = await createMeteredApp(breaking, { plans: PLANS });
    try {
      const key = await m.newKey('roomy');
      // The status line went out before the failure, so the server can only cut the response off.
      await expect(m.get('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23913000&format=csv', key)).rejects.toThrow(/destroyed before completion/);
      await waitForNoHold(m, key);
      expect(await usageOf(m, key)).toEqual([]);
    } finally {
      await m.close();
    }
  });

  it('HEAD answers like GET, including 403, but never charges', async () => {
    const m = await createMeteredApp(store, { plans: PLANS });
    try {
      const key = await m.newKey('month');
      const head = (url: string) => m.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
      const r = await head(SMALL_QUERY);
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toContain('application/json');
      expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 250 });
      expect((await head('/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23910300')).statusCode).toBe(403);
      expect(await usageOf(m, key)).toEqual([]);
    } finally {
      await m.close();
    }
  });

  it('a client that disconnects mid-stream is not charged, and its hold is released', async () => {
    const m = await createMeteredApp(store, { plans: PLANS });
    await m.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const key = await m.newKey('roomy');
      const { port } = m.app.server.address() as AddressInfo;
      // 3,000 blocks of verbose JSON: about 7 MB, more than the socket buffers between the two ends
      // hold (Linux: a send buffer of 4 MB at most), so the server cannot hand it all over before the
      // client leaves, however fast the engine produces it (chDB has it whole at once).
      const url = `http://127.0.0.1:${port}/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23913000&verbose=true`;
      await new Promise<void>((resolve, reject) => {
        const req = http.get(url, { headers: { 'x-api-key': key } }, (res) => {
          expect(res.statusCode).toBe(200);
          expect(res.headers['x-request-cost']).toBe('3000');
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (e) => (e.message.includes('socket hang up') || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
      });
      await waitForNoHold(m, key);
      expect(await usageOf(m, key)).toEqual([]);

      // The same request read to the end is charged, once.
      const full = await fetch(url, { headers: { 'x-api-key': key } });
      const body = await full.text();
      expect(body.length).toBeGreaterThan(1_000_000);
      expect(await usageOf(m, key)).toEqual([expect.objectContaining({ requests: 1, blocks: 3000 })]);
    } finally {
      await m.close();
    }
  });
});

describe.runIf(TEST_ENGINE === 'duckdb')('a small query on a store with a journal: its charge is written beside the engine run', () => {
  let dir: string;
  let disk: Store;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ahead-'));
    disk = await createDemoStore(dir);
  });
  afterAll(async () => {
    await disk?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const journal = () => fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8');

  it('a delivered response was durable in the journal before it arrived, and is charged once', async () => {
    const m = await createMeteredApp(disk, { plans: PLANS });
    try {
      const key = await m.newKey('roomy');
      const r = await m.get(SMALL_QUERY, key);
      expect(r.statusCode).toBe(200);
      const id = String(r.headers['x-request-id']);
      // Pending beside the engine run, then confirmed before the body was sent.
      expect(journal()).toMatch(new RegExp(`"requestId":"${id}".*"pending":true`));
      expect(journal()).toContain(`{"confirmed":"${id}","at":`);
      expect(await usageOf(m, key)).toEqual([expect.objectContaining({ requests: 1, blocks: SMALL_COST })]);
      expect(await chargedRequestIds(disk, [String(r.headers['x-request-id'])])).toEqual([r.headers['x-request-id']]);
    } finally {
      await m.close();
    }
  });

  it('an engine failure leaves the charge written ahead unconfirmed, and nothing is charged', async () => {
    const m = await createMeteredApp(failingEngine(disk), { plans: PLANS });
    try {
      const key = await m.newKey('month');
      const r = await m.get(SMALL_QUERY, key);
      expect(r.statusCode).toBe(500);
      expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': 250 });
      const id = String(r.headers['x-request-id']);
      // Written ahead, pending, and never confirmed: it counts for nothing, also after a crash.
      expect(journal()).toContain(`"requestId":"${id}"`);
      expect(journal()).not.toContain(`"confirmed":"${id}"`);
      expect(meteringOf(await m.get('/v1/protocols', key))['x-ratelimit-remaining']).toBe(250);
      expect(await usageOf(m, key)).toEqual([]);
    } finally {
      await m.close();
    }
  });
});

/** Waits until the key holds nothing: the server noticed the broken response and released its hold. */
async function waitForNoHold(m: MeteredApp, key: string): Promise<void> {
  const id = (await findKey(store, key))!.id;
  const now = m.meter.clock();
  const period = new Date(now).toISOString().slice(0, 7);
  for (let i = 0; i < 500; i++) {
    const b = await m.meter.backend.admit({ keyId: id, window: 0, period, now, countRequest: false });
    if (b.reserved === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the hold was never released');
}
