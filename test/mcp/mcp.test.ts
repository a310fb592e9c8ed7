/**
 * The MCP server through the SDK's own client, over stdio (`chainq mcp`)
 * and over Streamable HTTP (`/mcp`), against a real server with the demo
 * data: every tool is listed and called, its results equal the HTTP API's,
 * and each call is charged exactly what the same HTTP request is charged.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import type { Store } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, plans, ROOT, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
let baseUrl: string;
const PLANS = plans({ roomy: { requests_per_minute: null, monthly_blocks: 10_000_000 } });
const ETH0 = DEMO_START_BLOCKS.ETH!;
const PARAMS = { network: 'ETH', token: ['USDT', 'USDC'], block_start: ETH0, block_end: ETH0 + 300 };
const HTTP_QUERY = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT,USDC&block_start=${ETH0}&block_end=${ETH0 + 300}`;
const AGG_PARAMS = { ...PARAMS, token: 'USDT', group_by: 'block_number', period: '100' };
const HTTP_AGG = `/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 300}&group_by=block_number&period=100`;

beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: PLANS });
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(m.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

type Json = Record<string, unknown>;
interface Called {
  json: Json;
  isError: boolean;
}

async function call(client: Client, name: string, args: Json): Promise<Called> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  expect(content[0]!.type).toBe('text');
  return { json: JSON.parse(content[0]!.text) as Json, isError: r.isError === true };
}

const blocksCharged = async (key: string) => (await m.usage(key)).reduce((s, u) => s + Number(u.blocks), 0);

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'chainq-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  return client;
}

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: 'chainq-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin/chainq.js'), 'mcp', '--url', baseUrl, '--key', key],
      cwd: ROOT,
      stderr: 'pipe',
    }),
  );
  return client;
}

const TOOLS = ['describe_endpoint', 'estimate_cost', 'export_status', 'get_download_link', 'list_datasets', 'list_tokens', 'query_aggregate', 'query_events', 'start_export'];

/** The checks both transports must pass. */
function sharedSuite(transport: 'stdio' | 'streamable-http', connect: (key: string) => Promise<Client>) {
  describe(`over ${transport}`, () => {
    let key: string;
    let client: Client;
    beforeAll(async () => {
      key = await m.newKey('roomy');
      client = await connect(key);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
    });

    it("lists the tools, each with the catalog's parameter schema", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const q = tools.find((t) => t.name === 'query_events')!;
      const params = (q.inputSchema.properties as Record<string, { properties: Record<string, { type: string; enum?: string[] }> }>).params!;
      expect(params.properties.token!.type).toBe('string');
      expect(params.properties.max_cost!.type).toBe('integer');
      expect(params.properties.network!.enum).toContain('ETH');
      expect(params.properties.format).toBeUndefined();
    });

    it("query_events returns the API's rows, total and cost, and is charged exactly that cost", async () => {
      const http = await m.get(`${HTTP_QUERY}`, await m.newKey('roomy'));
      const body = JSON.parse(http.body) as { events: unknown[]; count: number };
      const before = await blocksCharged(key);
      const r = await call(client, 'query_events', { endpoint: 'evm/erc20/transfer', params: PARAMS, max_rows: 20 });
      expect(r.isError, JSON.stringify(r.json)).toBe(false);
      expect(r.json.rows).toEqual(body.events.slice(0, 20));
      expect(r.json).toMatchObject({ total: body.count, returned: 20, cost: Number(http.headers['x-request-cost']) });
      expect(r.json.note).toMatch(/get_download_link/);
      expect(r.json.covered_range).toBe(`blocks=${ETH0}-${ETH0 + 300}; network=ETH`);
      expect((await blocksCharged(key)) - before).toBe(Number(http.headers['x-request-cost']));
    });

    it("errors are the API's own, and a call over max_cost is refused and not charged", async () => {
      const before = await blocksCharged(key);
      const bad = await call(client, 'query_events', { endpoint: 'evm/erc20/transfer', params: { ...PARAMS, token: 'NOPE' } });
      expect(bad.isError).toBe(true);
      const http = JSON.parse((await m.get(HTTP_QUERY.replace('USDT,USDC', 'NOPE'), key)).body) as Json;
      expect(bad.json).toMatchObject({ error: http.error, code: 'unknown_token', http_status: 400 });
      const capped = await call(client, 'query_events', { endpoint: 'evm/erc20/transfer', params: { ...PARAMS, max_cost: 99 } });
      expect(capped.isError).toBe(true);
      expect(capped.json).toMatchObject({ code: 'cost_over_limit', cost: 300, max_cost: 99 });
      expect(await blocksCharged(key)).toBe(before);
    });
  });
}

sharedSuite('stdio', stdioClient);
sharedSuite('streamable-http', httpClient);

describe('every tool over Streamable HTTP, compared with the HTTP API', () => {
  let key: string;
  let client: Client;
  beforeAll(async () => {
    key = await m.newKey('roomy');
    client = await httpClient(key);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('list_datasets: every served endpoint with its coverage from /v1/coverage', async () => {
    const r = await call(client, 'list_datasets', { family: 'evm', network: 'ETH' });
    expect(r.isError).toBe(false);
    const cov = JSON.parse((await m.get('/v1/coverage?family=evm&network=ETH', key)).body) as { coverage: { dataset: string; ranges: unknown[] }[] };
    const datasets = r.json.datasets as { endpoint: string; path: string; aggregate: boolean; coverage: { ranges: unknown[] }[] }[];
    const evm = dataRoutes().filter((x) => x.endpoint.family === 'evm' && x.endpoint.networks.includes('ETH'));
    expect(datasets.map((d) => d.endpoint).sort()).toEqual([...new Set(evm.map((x) => x.endpoint.id))].sort());
    for (const c of cov.coverage)
      expect(
        datasets.find((d) => d.endpoint === c.dataset),
        c.dataset,
      ).toBeTruthy();
    const erc20 = datasets.find((d) => d.endpoint === 'evm/erc20/transfer')!;
    expect(erc20).toMatchObject({ path: '/v1/evm/erc20/events/transfer', aggregate: true });
    expect(erc20.coverage[0]!.ranges).toEqual(cov.coverage.find((c) => c.dataset === 'evm/erc20/transfer')!.ranges);
  });

  it('list_tokens filters /v1/tokens by symbol and network', async () => {
    const r = await call(client, 'list_tokens', { symbol: 'usdc', network: 'ETH' });
    expect(r.json.tokens).toEqual([expect.objectContaining({ symbol: 'USDC', networks: { ETH: { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6 } } })]);
  });

  it('describe_endpoint: parameters with rules, columns, range limits, cost rule, aggregate schema', async () => {
    const r = await call(client, 'describe_endpoint', { endpoint: 'evm/erc20/transfer' });
    expect(r.json).toMatchObject({
      path: '/v1/evm/erc20/events/transfer',
      parameters: { token: { type: 'string', required: true }, involving: { not_with: ['sender', 'receiver'] }, max_cost: { type: 'integer' } },
      range_limits: { per_format: { json: { blocks: 10_000, seconds: 86_400 } } },
      aggregate: { path: '/v1/evm/erc20/events/transfer/aggregate', parameters: { group_by: { required: true } } },
    });
    expect((r.json.columns as { name: string }[]).map((c) => c.name)).toEqual(['block_number', 'token', 'sender', 'receiver', 'amount', 'time']);
    expect(r.json.cost_rule).toMatch(/max\(100/);
    const unknown = await call(client, 'describe_endpoint', { endpoint: 'evm/nope/x' });
    expect(unknown.isError).toBe(true);
  });

  it('estimate_cost answers what POST /v1/calculate-cost answers, free', async () => {
    const before = await blocksCharged(key);
    const r = await call(client, 'estimate_cost', { endpoint: 'evm/erc20/transfer', aggregate: true, params: AGG_PARAMS });
    const http = JSON.parse((await m.estimate(HTTP_AGG, key)).body) as Json;
    expect(r.json).toEqual({ ...http, query: expect.any(String) });
    expect(r.json.cost).toBe(150);
    expect(await blocksCharged(key)).toBe(before);
  });

  it('query_aggregate returns the rows of the aggregate route, charged its cost', async () => {
    const http = await m.get(HTTP_AGG, await m.newKey('roomy'));
    const before = await blocksCharged(key);
    const r = await call(client, 'query_aggregate', { endpoint: 'evm/erc20/transfer', params: AGG_PARAMS });
    expect(r.json.rows).toEqual((JSON.parse(http.body) as { events: unknown[] }).events);
    expect(r.json).toMatchObject({ cost: 150, total: 4 });
    expect(r.json.note).toBeUndefined();
    expect((await blocksCharged(key)) - before).toBe(150);
  });

  it('get_download_link returns a verifiable URL whose file holds the same rows as the HTTP CSV', async () => {
    const r = await call(client, 'get_download_link', { endpoint: 'evm/erc20/transfer', params: { ...PARAMS, format: 'csv' } });
    expect(r.isError, JSON.stringify(r.json)).toBe(false);
    expect(r.json).toMatchObject({ status: 'success', format: 'csv', cost: 300 });
    const file = Buffer.from(await (await fetch(String(r.json.url))).arrayBuffer());
    expect(createHash('sha256').update(file).digest('hex')).toBe(r.json.sha256);
    expect(file.length).toBe(r.json.bytes);
    const csv = await m.get(`${HTTP_QUERY}&format=csv`, key);
    expect(file.toString()).toBe(csv.body);
  });

  it('start_export answers the export id and price; export_status follows it to done and lists files whose bytes hash to their sha256', async () => {
    const r = await call(client, 'start_export', { endpoint: 'evm/erc20/transfer', params: PARAMS, format: 'csv', partition_blocks: 100 });
    expect(r.isError, JSON.stringify(r.json)).toBe(false);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^exp_/), status: 'queued', partitions: 4 });
    let status: Called = await call(client, 'export_status', { id: r.json.id });
    for (let i = 0; status.json.status !== 'done' && i < 200; i++) {
      expect(status.isError, JSON.stringify(status.json)).toBe(false);
      expect(['queued', 'running']).toContain(status.json.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await call(client, 'export_status', { id: r.json.id });
    }
    expect(status.json).toMatchObject({ id: r.json.id, status: 'done', partitions: 4, partitions_done: 4 });
    const files = status.json.files as { name: string; bytes: number; sha256: string; path: string }[];
    // Blocks ETH0 to ETH0 + 300: three full partitions and a last one of one block.
    expect(files.map((f) => f.name)).toEqual([`part-${ETH0}-${ETH0 + 99}.csv`, `part-${ETH0 + 100}-${ETH0 + 199}.csv`, `part-${ETH0 + 200}-${ETH0 + 299}.csv`, `part-${ETH0 + 300}-${ETH0 + 300}.csv`]);
    for (const f of files) {
      const body = Buffer.from(await (await fetch(`${baseUrl}${f.path}`, { headers: { 'x-api-key': key } })).arrayBuffer());
      expect(body.length).toBe(f.bytes);
      expect(createHash('sha256').update(body).digest('hex')).toBe(f.sha256);
    }
  });

  it("start_export refusals are the API's own and uncharged; export_status of an unknown id is not_found", async () => {
    const before = await blocksCharged(key);
    const capped = await call(client, 'start_export', { endpoint: 'evm/erc20/transfer', params: PARAMS, max_cost: 99 });
    expect(capped.isError).toBe(true);
    expect(capped.json).toMatchObject({ code: 'cost_over_limit', max_cost: 99 });
    expect(await blocksCharged(key)).toBe(before);
    const unknown = await call(client, 'export_status', { id: 'exp_nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.json).toMatchObject({ code: 'not_found', http_status: 404 });
  });
});

describe('/mcp authentication', () => {
  it("refuses a call without a key or with an unknown one, with the API's 401 body", async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'missing_api_key' });
    const bad = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer cq_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, body: JSON.stringify(init) });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ code: 'invalid_api_key' });
    const good = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${await m.newKey('roomy')}` }, body: JSON.stringify(init) });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('chainq');
    expect((await fetch(`${baseUrl}/mcp`)).status).toBe(405);
  });
});
