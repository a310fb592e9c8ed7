/** The discovery endpoints (docs/api.md, "Discovery"), derived from the catalog. */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryRoutes } from '../../src/catalog/derive/discovery.ts';
import { openApiDocument } from '../../src/catalog/derive/openapi.ts';
import { registerDiscovery } from '../../src/server/routes/discovery.ts';
import type { Store } from '../../src/store/types.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(null);
});
afterAll(async () => {
  await t?.close();
});

const json = async (url: string) => {
  const res = await t.get(url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json() as unknown;
};

describe('discovery', () => {
  it('lists protocols as <family>/<protocol> strings', async () => {
    const list = (await json('/v1/protocols')) as string[];
    expect(list).toEqual(expect.arrayContaining(['evm/native', 'evm/erc20', 'evm/lending_v3', 'evm/dex_v3', 'evm/staking']));
    for (const p of list) expect(p).toMatch(/^(evm|tron|btc)\/[a-z0-9_]+$/);
  });

  it('lists tokens with symbol, name, aliases and per-network deployments', async () => {
    const tokens = (await json('/v1/tokens')) as { symbol: string; name: string; aliases: string[]; networks: Record<string, { address: string | null; decimals: number }> }[];
    const usdt = tokens.find((x) => x.symbol === 'USDT')!;
    expect(usdt.name).toMatch(/tether/i);
    expect(Array.isArray(usdt.aliases)).toBe(true);
    expect(usdt.networks.ETH).toEqual({ address: '0xdac17f958d2ee523a2206206994597c13d831ec7', decimals: 6 });
    expect(usdt.networks.TRON).toEqual({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 });
  });

  it('lists the networks and event types of each EVM protocol', async () => {
    expect(await json('/v1/evm/native/networks')).toEqual(['ETH', 'POLYGON', 'BASE', 'OP', 'ARB']);
    expect(await json('/v1/evm/staking/networks')).toEqual(['ETH', 'ARB', 'SONEIUM', 'UNI', 'OP', 'ZK', 'ZIRCUIT', 'BASE', 'MANTLE', 'MODE']);
    expect(await json('/v1/evm/lending_v3/events/types')).toEqual(['deposit', 'withdraw', 'borrow', 'repay', 'flashloan', 'liquidation']);
    expect(await json('/v1/evm/dex_v3/events/types')).toEqual(['swap', 'deposit', 'withdraw', 'collect']);
    expect(await json('/v1/evm/erc20/events/types')).toEqual(['transfer']);
  });

  it('describes dex_v3 extra arguments as the specification says', async () => {
    const args = (await json('/v1/evm/dex_v3/extra_args')) as Record<string, { type: string; required: boolean; enum?: unknown[]; description: string }>;
    expect(args.symbol0).toMatchObject({ type: 'string', required: true });
    expect(args.symbol1).toMatchObject({ type: 'string', required: true });
    expect(args.fee).toMatchObject({ type: 'integer', required: true, enum: [100, 500, 3000, 10000] });
    for (const v of Object.values(args)) expect(typeof v.description).toBe('string');
  });

  it('describes aggregate schemas with columns and count always included', async () => {
    const schema = (await json('/v1/evm/lending_v3/aggregate_schema')) as Record<
      string,
      { columns: { source_column: string; aggregation: string; output_column: string }[]; always_included: string[] }
    >;
    expect(Object.keys(schema)).toEqual(['deposit', 'withdraw', 'borrow', 'repay', 'flashloan', 'liquidation']);
    expect(schema.borrow!.columns.map((c) => c.output_column)).toEqual(['agg_amount', 'mean_borrow_rate']);
    expect(schema.deposit!.always_included).toContain('count');
    const dex = (await json('/v1/evm/dex_v3/aggregate_schema')) as Record<string, { pivot_columns?: { output_pattern: string }[] }>;
    expect(dex.swap!.pivot_columns!.map((p) => p.output_pattern)).toEqual(['agg_<TOKEN>_sold', 'agg_<TOKEN>_bought']);
  });

  it('registers exactly the discovery routes the catalog lists, each documented in OpenAPI and answered', async () => {
    const bare = Fastify();
    const registered: string[] = [];
    bare.addHook('onRoute', (r) => {
      if (r.method !== 'HEAD') registered.push(`${String(r.method)} ${r.url}`);
    });
    registerDiscovery(bare, {} as Store);
    await bare.close();
    const listed = discoveryRoutes();
    expect(registered).toEqual(listed.map((r) => `GET ${r.path}`)); // HEAD comes with each GET
    const doc = openApiDocument() as { paths: Record<string, { get?: { tags: string[] } }> };
    for (const r of listed) {
      expect(doc.paths[r.path]?.get?.tags, r.path).toEqual(['discovery']);
      expect((await t.get(r.path)).statusCode, r.path).toBe(200);
    }
    // And OpenAPI documents no discovery path the server does not have.
    expect(
      Object.keys(doc.paths)
        .filter((p) => doc.paths[p]!.get?.tags.includes('discovery'))
        .sort(),
    ).toEqual(listed.map((r) => r.path).sort());
  });

  it('serves OpenAPI and the docs page without a key', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/evm/erc20/events/transfer']).toBeDefined();
    // The cost preview is a POST with a JSON body naming the query to price.
    const preview = doc.paths['/v1/calculate-cost'] as { post?: { requestBody: { content: Record<string, { schema: { required: string[] } }> }; responses: Record<string, unknown> } };
    expect(preview.post?.requestBody.content['application/json']?.schema.required).toEqual(['query']);
    expect(Object.keys(preview.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '415']));
    const page = await t.app.inject({ url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui-bundle.js');
    const js = await t.app.inject({ url: '/docs/swagger-ui-bundle.js' });
    expect(js.statusCode).toBe(200);
    expect(js.body.length).toBeGreaterThan(100_000);
  });
});
