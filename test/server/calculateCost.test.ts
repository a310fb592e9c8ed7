/**
 * POST /v1/calculate-cost: the full §2.3 response, the same price the query
 * is then charged for every served route, the same error the query itself
 * would get, and the body and media-type rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALCULATE_COST_PATH } from '../../src/catalog/calculateCost.ts';
import { openApiDocument } from '../../src/catalog/derive/openapi.ts';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { computeCost } from '../../src/query/cost.ts';
import { parseRange } from '../../src/query/range.ts';
import { coveredIntervals, coveredScopes } from '../../src/store/coverage.ts';
import type { Store } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, meteringOf, plans, SMALL_QUERY, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
let key: string;
const BUDGET = 10_000_000;

beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: plans({ big: { requests_per_minute: null, monthly_blocks: BUDGET } }) });
  key = await m.newKey('big');
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

const post = (payload: string, contentType: string | null = 'application/json') =>
  m.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': key, ...(contentType ? { 'content-type': contentType } : {}) }, payload });
const estimate = (query: string) => m.estimate(query, key);

/** A valid query for a route over data the demo holds, preferring ARB (it has a discount). */
async function validQuery(route: ReturnType<typeof dataRoutes>[number], range: 'blocks' | 'time'): Promise<{ url: string; network: string }> {
  const e = route.endpoint;
  const p = new URLSearchParams();
  let network = '';
  if (e.family === 'exchange') {
    p.set('token', 'BTC');
    p.set('since', '2025-12-01T01:00:00Z');
    p.set('until', '2025-12-01T03:00:00Z');
  } else {
    const scopes = await coveredScopes(store, e.id);
    const scope = scopes.includes('ARB') ? 'ARB' : scopes[0]!;
    const pick = { scope, ...(await coveredIntervals(store, e.id, scope))[0]! };
    network = pick.scope;
    if (e.family === 'evm') p.set('network', pick.scope);
    if (range === 'blocks') {
      const lo = Number(pick.lo) + Math.min(100, Math.floor((Number(pick.hi) - Number(pick.lo)) / 4));
      p.set('block_start', String(lo));
      p.set('block_end', String(lo + Math.min(5000, Number(pick.hi) - lo - 1)));
    } else {
      p.set('since', '2025-12-01T01:00:00Z');
      p.set('until', '2025-12-01T01:20:00Z');
    }
    if ('token' in route.params) p.set('token', e.family === 'tron' ? 'USDT' : 'USDC');
    if ('symbol0' in route.params) {
      p.set('symbol0', 'WETH');
      p.set('symbol1', 'USDC');
      p.set('fee', '500');
    }
  }
  if (route.kind === 'aggregate') {
    p.set('group_by', range === 'blocks' ? 'block_number' : 'time');
    p.set('period', range === 'blocks' ? '1000' : '1h');
  }
  return { url: `${route.path}?${p}`, network };
}

describe('the estimate equals the charge, for every served route', () => {
  const routes = dataRoutes();
  it('serves at least the 17 EVM raw routes', () => {
    expect(routes.length).toBeGreaterThanOrEqual(17);
  });

  // Venues take only time ranges.
  const cases = routes.flatMap((r) =>
    r.endpoint.family === 'exchange'
      ? ([[r.path, 'time']] as const)
      : ([
          [r.path, 'blocks'],
          [r.path, 'time'],
        ] as const),
  );
  it.each(cases)('%s over %s', async (path, range) => {
    const route = routes.find((r) => r.path === path)!;
    const { url, network } = await validQuery(route, range);
    const est = await estimate(url);
    expect(est.statusCode, est.body).toBe(200);
    const body = JSON.parse(est.body);
    const q = Object.fromEntries(new URL(url, 'http://x').searchParams);
    const expected = computeCost({ costClass: route.endpoint.cost, network, range: parseRange(q), aggregate: route.kind === 'aggregate' });
    expect(body.cost).toBe(expected.cost);
    expect(body.breakdown).toEqual(expected.breakdown);
    if (route.endpoint.family !== 'exchange') expect(body.breakdown.estimated_from_time).toBe(range === 'time');

    const run = await m.get(url, key);
    expect(run.statusCode, run.body).toBe(200);
    expect(meteringOf(run)['x-request-cost']).toBe(body.cost);
  });
});

describe('the estimate response of docs/metering.md', () => {
  it('echoes the query and gives cost, quota before and after, and the full breakdown', async () => {
    const fresh = await m.newKey('big');
    const query = '/v1/evm/erc20/events/transfer?network=ARB&token=USDC&block_start=405000100&block_end=405010100';
    const r = await m.estimate(query, fresh);
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      query,
      cost: 2000,
      quota_remaining: BUDGET,
      quota_remaining_after: BUDGET - 2000,
      breakdown: {
        network: 'arb',
        network_discount: 0.2,
        is_aggregate: false,
        aggregate_discount: 1,
        range_type: 'block',
        block_range: 10_000,
        estimated_from_time: false,
        block_cost: 2000,
        formula: 'block_range = 405010100 - 405000100 = 10000; cost = max(100, round(10000 × 0.2 network discount (ARB) × 1 aggregate discount)) = 2000',
      },
    });
    expect(meteringOf(r)).toMatchObject({ 'x-request-cost': 0, 'x-ratelimit-remaining': BUDGET });
  });

  it('accepts an absolute URL and prices it by its path and query', async () => {
    const r = await estimate(`https://api.example.com${SMALL_QUERY}`);
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body).cost).toBe(100);
  });

  it('is in OpenAPI as it answers: the documented fields and the documented statuses', async () => {
    type Schema = { required: string[]; properties: Record<string, unknown> };
    const op = (openApiDocument().paths as Record<string, { post: { responses: Record<string, { content?: Record<string, { schema: Schema }> }> } }>)[CALCULATE_COST_PATH]!.post;
    const answer = op.responses[200]!.content!['application/json']!.schema;
    const body = JSON.parse((await estimate(SMALL_QUERY)).body) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([...answer.required].sort());
    expect(Object.keys(answer.properties).sort()).toEqual([...answer.required].sort());
    const statuses = [
      (await estimate(SMALL_QUERY)).statusCode,
      (await post('[]')).statusCode,
      (await m.app.inject({ method: 'POST', url: CALCULATE_COST_PATH, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query: SMALL_QUERY }) })).statusCode,
      (await estimate('/v1/evm/erc20/events/nothing')).statusCode,
      (await post(JSON.stringify({ query: SMALL_QUERY }), 'text/plain')).statusCode,
    ];
    expect(statuses.map(String)).toEqual(Object.keys(op.responses));
  });

  it('prices a discovery call at 0', async () => {
    const r = await estimate('/v1/evm/erc20/networks');
    expect(JSON.parse(r.body)).toMatchObject({ cost: 0, breakdown: { range_type: 'none' } });
  });
});

describe('an invalid embedded query gets exactly the error it would get if run', () => {
  const base = '/v1/evm/erc20/events/transfer';
  it.each([
    ['unknown parameter', `${SMALL_QUERY}&block_stat=5`],
    ['missing required parameter', `${base}?network=ETH&block_start=23910000&block_end=23910100`],
    ['wrong type', `${base}?network=ETH&token=USDC&block_start=abc&block_end=23910100`],
    ['unsupported network', `${base}?network=MARS&token=USDC&block_start=23910000&block_end=23910100`],
    ['both range pairs', `${SMALL_QUERY}&since=2025-12-01&until=2025-12-02`],
    ['no range', `${base}?network=ETH&token=USDC`],
    ['end before start', `${base}?network=ETH&token=USDC&block_start=23910100&block_end=23910000`],
    ['range over the JSON limit', `${base}?network=ETH&token=USDC&block_start=23910000&block_end=23920001`],
    ['conflicting filters', `${SMALL_QUERY}&involving=0x1&sender=0x2`],
    ['unknown token', `${base}?network=ETH&token=NOPE&block_start=23910000&block_end=23910100`],
    ['range never ingested', `${base}?network=ETH&token=USDC&block_start=100&block_end=200`],
    ['repeated parameter', `${SMALL_QUERY}&token=WETH`],
    ['unknown path', '/v1/evm/erc20/events/nothing?network=ETH'],
    ['a link of an inline format', `${SMALL_QUERY}&link=true&format=json`],
  ])('%s', async (_name, query) => {
    const direct = await m.get(query, key);
    expect(direct.statusCode).toBeGreaterThanOrEqual(400);
    const est = await estimate(query);
    expect(est.statusCode).toBe(direct.statusCode);
    expect(JSON.parse(est.body)).toEqual(JSON.parse(direct.body));
  });
});

describe('the request itself', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['no Content-Type', null],
  ])('%s is 415 unsupported_media_type', async (_name, ct) => {
    const r = await post(JSON.stringify({ query: SMALL_QUERY }), ct);
    expect(r.statusCode).toBe(415);
    expect(JSON.parse(r.body).code).toBe('unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    expect((await post(JSON.stringify({ query: SMALL_QUERY }), 'application/json; charset=utf-8')).statusCode).toBe(200);
  });

  it.each([
    ['not JSON', '{query:'],
    ['empty', ''],
    ['a JSON array', '[]'],
    ['a JSON string', '"/v1/protocols"'],
    ['no query', '{"q": "/v1/protocols"}'],
    ['query not a string', '{"query": 5}'],
    ['empty query', '{"query": ""}'],
    ['query outside /v1', '{"query": "/healthz"}'],
  ])('%s is 400 invalid_body', async (_name, payload) => {
    const r = await post(payload);
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ status: 'error', code: 'invalid_body' });
    meteringOf(r);
  });
});
