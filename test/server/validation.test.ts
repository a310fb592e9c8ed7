/** Every validation rule and mutual exclusion of the EVM endpoints, and the 401/404/405 answers. */
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
const erc20 = (q: string) => `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&${q}`;
const range = `block_start=${ETH0}&block_end=${ETH0 + 10}`;

async function expectError(url: string, status: number, code: string, message?: RegExp) {
  const res = await t.get(url);
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as { status: string; error: string; code: string };
  expect(body.status).toBe('error');
  expect(body.code).toBe(code);
  if (message) expect(body.error).toMatch(message);
  expect(res.body).not.toMatch(/SELECT|FROM |at .*\.ts:/);
  return body;
}

describe('ranges', () => {
  it.each([
    ['neither pair', '', 'missing_parameter', /range is required/],
    ['half a block pair', `block_start=${ETH0}`, 'missing_parameter', /block_end is required/],
    ['half a time pair', 'until=2025-12-01T01:00:00Z', 'missing_parameter', /since is required/],
    ['both pairs', `${range}&since=2025-12-01&until=2025-12-01T01:00:00Z`, 'conflicting_parameters', /not both/],
    ['block_end before block_start', `block_start=${ETH0 + 5}&block_end=${ETH0}`, 'invalid_range', /before block_start/],
    ['until not after since', 'since=2025-12-01T01:00:00Z&until=2025-12-01T01:00:00Z', 'invalid_range', /must be after/],
    ['a time that is not a time', 'since=yesterday&until=2025-12-01T01:00:00Z', 'invalid_parameter', /not a time/],
    ['an ISO time without zone', 'since=2025-12-01T00:00:00&until=2025-12-01T01:00:00Z', 'invalid_parameter', /not a time/],
    ['a negative block', 'block_start=-1&block_end=5', 'invalid_parameter', /at least 0/],
    ['a block that is not an integer', 'block_start=1.5&block_end=5', 'invalid_parameter', /integer/],
  ])('refuses %s', async (_name, q, code, message) => {
    await expectError(erc20(q), 400, code, message);
  });

  it('allows exactly 10,000 blocks in JSON and refuses 10,001, naming the format that allows it', async () => {
    const arb = DEMO_START_BLOCKS.ARB!;
    const q = (end: number) => `/v1/evm/erc20/events/transfer?network=ARB&token=USDC&block_start=${arb}&block_end=${end}`;
    const ok = await t.get(q(arb + 10_000));
    expect(ok.statusCode).toBe(200);
    const body = await expectError(q(arb + 10_001), 400, 'range_too_large', /10,000 blocks.*format=json.*format=parquet allows up to 1,000,000 blocks/);
    expect(body).toMatchObject({ limit: 10_000, requested: 10_001, parameter: 'block_end' });
  });

  it('names the end of the range as the parameter at fault when the range is reversed', async () => {
    expect(await expectError(erc20(`block_start=${ETH0 + 5}&block_end=${ETH0}`), 400, 'invalid_range', /before/)).toMatchObject({ parameter: 'block_end' });
    expect(await expectError(erc20('since=2025-12-01T02:00:00Z&until=2025-12-01T01:00:00Z'), 400, 'invalid_range', /after/)).toMatchObject({ parameter: 'until' });
  });

  it('limits CSV like JSON and Parquet to 100,000 blocks (1,000,000 on ARB)', async () => {
    await expectError(erc20(`block_start=${ETH0}&block_end=${ETH0 + 10_001}&format=csv`), 400, 'range_too_large', /format=csv/);
    await expectError(erc20(`block_start=${ETH0}&block_end=${ETH0 + 100_001}&format=parquet`), 400, 'range_too_large', /split it/);
    const arb = DEMO_START_BLOCKS.ARB!;
    await expectError(`/v1/evm/erc20/events/transfer?network=ARB&token=USDC&block_start=${arb}&block_end=${arb + 1_000_001}&format=parquet`, 400, 'range_too_large', /1,000,000 blocks/);
  });

  it('allows one day of time in JSON and seven in Parquet', async () => {
    await expectError(erc20('since=2025-12-01&until=2025-12-02T00:00:01Z'), 400, 'range_too_large', /1 day/);
    await expectError(erc20('since=2025-12-01&until=2025-12-08T00:00:01Z&format=parquet'), 400, 'range_too_large', /7 days/);
  });

  it('accepts Unix seconds, offsets and bare dates, since inclusive and until exclusive', async () => {
    const a = await t.get(erc20('since=1764547200&until=1764548400'));
    const b = await t.get(erc20('since=2025-12-01&until=2025-12-01T01:20:00%2B01:00'));
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    const rows = (a.json() as { events: { time: string }[] }).events;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]!.time >= '2025-12-01T00:00:00Z').toBe(true);
    expect(rows.every((r) => r.time < '2025-12-01T00:20:00Z')).toBe(true);
  });

  it('refuses a range that was never ingested, naming the missing blocks', async () => {
    const body = await expectError(erc20(`block_start=${ETH0 - 100}&block_end=${ETH0 + 5}`), 400, 'invalid_range', /never ingested/);
    expect(body).toMatchObject({ missing_blocks: [[ETH0 - 100, ETH0 - 2]] });
    await expectError(erc20('since=2025-11-30T23:00:00Z&until=2025-12-01T01:00:00Z'), 400, 'invalid_range', /past the ingested blocks/);
  });
});

describe('parameters', () => {
  it('names an unknown parameter and suggests the closest one', async () => {
    const body = await expectError(erc20(`block_stat=${ETH0}&block_end=${ETH0 + 1}`), 400, 'unknown_parameter', /block_stat.*did you mean 'block_start'/);
    expect(body).toMatchObject({ parameter: 'block_stat' });
  });

  it('requires network and lists the supported ones for a wrong network', async () => {
    await expectError(`/v1/evm/erc20/events/transfer?token=USDT&${range}`, 400, 'missing_parameter', /network/);
    const body = await expectError(`/v1/evm/native/events/transfer?network=BSC&${range}`, 400, 'unsupported_network', /ETH, POLYGON, BASE, OP, ARB/);
    expect(body).toMatchObject({ supported: ['ETH', 'POLYGON', 'BASE', 'OP', 'ARB'] });
  });

  it('takes network and format in any case', async () => {
    const res = await t.get(`/v1/evm/erc20/events/transfer?network=eth&token=usdt&${range}&format=CSV`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
  });

  it('refuses an unknown format and a repeated parameter', async () => {
    await expectError(erc20(`${range}&format=xml`), 400, 'invalid_parameter', /json, csv, parquet/);
    await expectError(erc20(`${range}&verbose=yes`), 400, 'invalid_parameter', /true or false/);
    await expectError(`/v1/evm/erc20/events/transfer?network=ETH&network=ARB&token=USDT&${range}`, 400, 'invalid_parameter', /single/);
  });

  it('requires token on erc20 and refuses an unknown symbol', async () => {
    await expectError(`/v1/evm/erc20/events/transfer?network=ETH&${range}`, 400, 'missing_parameter', /token/);
    await expectError(`/v1/evm/erc20/events/transfer?network=ETH&token=NOPE&${range}`, 400, 'unknown_token', /NOPE/);
  });

  it('accepts decimals only with a contract address', async () => {
    await expectError(erc20(`${range}&decimals=6`), 400, 'invalid_parameter', /decimals applies only/);
  });

  it('refuses an address that is not an address', async () => {
    await expectError(erc20(`${range}&sender=0x1234`), 400, 'invalid_parameter', /sender='0x1234' is not a 0x-prefixed/);
  });

  it.each([
    ['involving', 'sender'],
    ['involving', 'receiver'],
    ['involving_label', 'involving'],
    ['involving_label', 'sender'],
    ['involving_label', 'receiver'],
    ['involving_category', 'involving'],
    ['involving_category', 'sender'],
    ['involving_category', 'receiver'],
    ['sender_label', 'sender'],
    ['sender_label', 'sender_category'],
    ['sender_label', 'involving'],
    ['sender_category', 'sender'],
    ['sender_category', 'involving'],
    ['receiver_label', 'receiver'],
    ['receiver_label', 'receiver_category'],
    ['receiver_label', 'involving'],
    ['receiver_category', 'receiver'],
    ['receiver_category', 'involving'],
  ])('refuses %s together with %s', async (a, b) => {
    const value = (p: string) => (p.endsWith('label') ? 'binance' : p.endsWith('category') ? 'exchange' : '0x28c6c06298d514db089934071355e5743bf21d60');
    await expectError(erc20(`${range}&${a}=${value(a)}&${b}=${value(b)}`), 400, 'conflicting_parameters', new RegExp(`${a}|${b}`));
  });

  it('refuses eth_market_type off ETH and an unknown market', async () => {
    const arb = DEMO_START_BLOCKS.ARB!;
    await expectError(`/v1/evm/lending_v3/events/deposit?network=ARB&eth_market_type=Prime&block_start=${arb}&block_end=${arb + 5}`, 400, 'invalid_parameter', /only to network=ETH/);
    await expectError(`/v1/evm/lending_v3/events/deposit?network=ETH&eth_market_type=Gold&${range}`, 400, 'invalid_parameter', /Core, Prime, EtherFi/);
  });

  it('requires symbol0, symbol1 and a listed fee on dex_v3, and names fee tiers that exist', async () => {
    await expectError(`/v1/evm/dex_v3/events/swap?network=ETH&symbol1=USDC&fee=500&${range}`, 400, 'missing_parameter', /symbol0/);
    await expectError(`/v1/evm/dex_v3/events/swap?network=ETH&symbol0=WETH&symbol1=USDC&fee=501&${range}`, 400, 'invalid_parameter', /100, 500, 3000, 10000/);
    await expectError(`/v1/evm/dex_v3/events/swap?network=ETH&symbol0=WETH&symbol1=USDC&fee=100&${range}`, 400, 'invalid_parameter', /fee tiers with a pool: 500, 3000/);
  });
});

describe('keys, paths and methods', () => {
  it('answers 401 without a key and with an unknown one, before validating anything', async () => {
    const none = await t.app.inject({ url: '/v1/evm/erc20/events/transfer?bad=1' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ code: 'missing_api_key' });
    const wrong = await t.get('/v1/protocols', { 'x-api-key': 'cq_00000000000000000000000000000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('answers /healthz without a key', async () => {
    const res = await t.app.inject({ url: '/healthz' });
    expect(res.statusCode).toBe(200);
  });

  it('answers 404 for an unknown path, protocol or event type', async () => {
    for (const url of ['/v1/nope', '/v1/evm/nope/networks', '/v1/evm/erc20/events/swap', '/v2/protocols']) {
      const res = await t.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ status: 'error', code: 'not_found' });
    }
  });

  it('answers 405 for a known path with the wrong method', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/v1/evm/erc20/events/transfer', headers: { 'x-api-key': t.key } });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ code: 'method_not_allowed' });
  });

  it('answers 405 before reading the body: a form POST to a GET-only path is 405 with Allow, not 415', async () => {
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'network=ETH&block_start=1'],
      ['text/plain', 'hello'],
      ['application/json', '{"network":"ETH"}'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/evm/erc20/events/transfer', headers: { 'x-api-key': t.key, 'content-type': type }, payload });
      expect(res.statusCode, type).toBe(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.json()).toMatchObject({ code: 'method_not_allowed' });
    }
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/nope', headers: { 'x-api-key': t.key, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' });
    expect(unknown.statusCode).toBe(404);
    // Still after authentication: no key, no answer about the route.
    const anonymous = await t.app.inject({ method: 'POST', url: '/v1/evm/erc20/events/transfer', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(anonymous.statusCode).toBe(401);
  });
});
