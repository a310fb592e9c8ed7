/** The client against the real server (a real HTTP port, the real store and metering). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store/types.ts';
import { breakingMidStream, createDemoStore, createMeteredApp, plans, TestClock, type MeteredApp } from '../../test/helpers/metered.ts';
import { generateClientRoutes, GENERATED_FILE } from './generate.ts';
import {
  AuthenticationError,
  CostOverLimitError,
  createClient,
  IncompleteResponseError,
  InvalidRequestError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  retryDelayMs,
  ROUTES,
  type ChainqClient,
  type EvmErc20TransferRow,
} from './index.ts';

let store: Store;
let m: MeteredApp;
let baseUrl: string;
const clock = new TestClock(Date.parse('2025-12-10T12:00:10Z'));
const PLANS = plans({
  roomy: { requests_per_minute: 1000, monthly_blocks: 1_000_000 },
  two: { requests_per_minute: 2, monthly_blocks: 1_000_000 },
  small: { requests_per_minute: null, monthly_blocks: 150 },
});
const P = { network: 'ETH', token: 'USDC', block_start: 23_910_000, block_end: 23_910_100 } as const;

beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: PLANS, clock });
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(m.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

const client = async (plan: string, extra: Partial<Parameters<typeof createClient>[0]> = {}): Promise<ChainqClient> => createClient({ baseUrl, apiKey: await m.newKey(plan), ...extra });

describe('typed methods generated from the catalog', () => {
  it('the checked-in routes.generated.ts is what the catalog generates (run `npm run generate:client`)', () => {
    expect(fs.readFileSync(GENERATED_FILE, 'utf8')).toBe(generateClientRoutes());
  });

  it('has a method for every served route', async () => {
    const cq = await client('roomy');
    for (const name of Object.keys(ROUTES)) expect(typeof (cq as unknown as Record<string, unknown>)[name]).toBe('function');
    expect(ROUTES.evmErc20Transfer.path).toBe('/v1/evm/erc20/events/transfer');
  });

  it('reads typed JSON rows and exposes the metering of the response', async () => {
    const cq = await client('roomy');
    const q = cq.evmErc20Transfer(P);
    const env = await q.json();
    expect(env.status).toBe('success');
    expect(env.count).toBe(env.events.length);
    const row: EvmErc20TransferRow = env.events[0]!;
    expect(row).toMatchObject({ block_number: 23_910_000, token: 'USDC' });
    expect(q.metering).toMatchObject({ limit: 1000, cost: 100, remaining: 1_000_000 - 100, reset: 50 });
  });

  it('joins list parameters with commas', async () => {
    const cq = await client('roomy');
    const all = await cq.evmErc20Transfer(P).json();
    const two = [all.events[0]!.sender!, all.events[1]!.sender!];
    const some = await cq.evmErc20Transfer({ ...P, sender: two }).json();
    expect(some.events.length).toBeGreaterThan(0);
    expect(some.events.every((e) => two.includes(e.sender!))).toBe(true);
  });

  it('prices a query with cost(), free of charge, at what running it costs', async () => {
    const cq = await client('roomy');
    const q = cq.evmErc20Transfer({ ...P, network: 'ARB', block_start: 405_000_100, block_end: 405_010_100 });
    const est = await q.cost();
    expect(est).toMatchObject({ cost: 2000, quota_remaining: 1_000_000, quota_remaining_after: 998_000 });
    expect(est.breakdown.formula).toContain('0.2 network discount (ARB)');
    await q.json();
    expect(q.metering?.cost).toBe(est.cost);
  });

  it('discovery methods', async () => {
    const cq = await client('roomy');
    expect(await cq.protocols()).toContain('evm/erc20');
    expect(await cq.networks('erc20')).toContain('ETH');
    expect(await cq.eventTypes('lending_v3')).toContain('liquidation');
    expect(await cq.extraArgs('dex_v3')).toHaveProperty('fee');
    expect((await cq.tokens()).some((t) => t.symbol === 'USDC')).toBe(true);
    expect(await cq.aggregateSchema('evm/dex_v3')).toHaveProperty('swap');
    expect(await cq.aggregateSchema('tron/trc20')).toHaveProperty('transfer');
    expect((await cq.coverage({ protocol: 'erc20' })).coverage.length).toBeGreaterThan(0);
  });

  it("usage() reads the key's month: what a query charged is what it reports", async () => {
    const cq = await client('roomy');
    const q = cq.evmErc20Transfer(P);
    await q.json();
    const usage = await cq.usage({ charges: 1 });
    expect(usage).toMatchObject({ plan: 'roomy', monthly_blocks: 1_000_000, blocks_used: 100, blocks_left: 1_000_000 - 100, requests_charged: 1 });
    expect(usage.last_charges).toEqual([expect.objectContaining({ request_id: q.metering!.requestId, cost: 100 })]);
  });
});

describe('streaming', () => {
  it('writes a large CSV to a file without changing a byte', async () => {
    const cq = await client('roomy');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-client-'));
    try {
      const params = { ...P, block_end: 23_913_000, format: 'csv' } as const;
      const file = path.join(dir, 'out.csv');
      const { bytes, metering } = await cq.evmErc20Transfer(params).toFile(file);
      expect(bytes).toBeGreaterThan(1_000_000);
      expect(metering.cost).toBe(3000);
      const direct = await fetch(`${baseUrl}${ROUTES.evmErc20Transfer.path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string]))}`, {
        headers: { 'x-api-key': await m.newKey('roomy') },
      });
      expect(fs.readFileSync(file).equals(Buffer.from(await direct.arrayBuffer()))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('yields the body as an async iterator of chunks', async () => {
    const cq = await client('roomy');
    let bytes = 0;
    let chunks = 0;
    for await (const c of cq.evmErc20Transfer({ ...P, block_end: 23_913_000, format: 'parquet' }).stream()) {
      bytes += c.length;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(1);
    expect(bytes).toBeGreaterThan(100_000);
  });

  it('json() refuses a non-JSON format instead of parsing garbage', async () => {
    const cq = await client('roomy');
    await expect(cq.evmErc20Transfer({ ...P, format: 'csv' }).json()).rejects.toThrow(TypeError);
  });

  it('a body that breaks off mid-stream raises IncompleteResponseError, and is not charged', async () => {
    const broken = await createMeteredApp(breakingMidStream(store), { plans: PLANS });
    await broken.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const key = await broken.newKey('roomy');
      const cq = createClient({ baseUrl: `http://127.0.0.1:${(broken.app.server.address() as AddressInfo).port}`, apiKey: key });
      const q = cq.evmErc20Transfer({ ...P, block_end: 23_913_000, format: 'csv' });
      const e = await (async () => {
        for await (const _ of q.stream()) {
          /* read on */
        }
      })().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(IncompleteResponseError);
      expect((e as IncompleteResponseError).requestId).toBe(q.metering?.requestId);
      expect(await broken.usage(key)).toEqual([]);
    } finally {
      await broken.close();
    }
  });
});

describe('typed errors from error bodies', () => {
  it('400 → InvalidRequestError naming the parameter', async () => {
    const cq = await client('roomy');
    const e = await cq
      .query('/v1/evm/erc20/events/transfer', { ...P, block_stat: 1 })
      .json()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect(e).toMatchObject({ status: 400, code: 'unknown_parameter', parameter: 'block_stat' });
  });

  it('max_cost: a query over the cap → CostOverLimitError with cost and cap, nothing charged', async () => {
    const cq = await client('roomy');
    const q = cq.evmErc20Transfer({ ...P, block_end: 23_910_500, max_cost: 499 });
    const e = await q.json().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CostOverLimitError);
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect(e).toMatchObject({ status: 400, code: 'cost_over_limit', cost: 500, maxCost: 499 });
    expect((await cq.evmErc20Transfer({ ...P, block_end: 23_910_500, max_cost: 500 }).json()).status).toBe('success');
  });

  it('label namespaces: put, list, get and delete, then filter with wallet_namespace; bad CSV names the line', async () => {
    const cq = await client('roomy');
    const rows = (await cq.evmErc20Transfer(P).json()).events;
    const sender = rows[0]!.sender;
    expect(await cq.labels.put('desks', `address,label,category\n${sender},Desk A,desk\n`)).toMatchObject({ status: 'success', namespace: 'desks', rows: 1 });
    expect((await cq.labels.list()).namespaces.map((n) => n.namespace)).toEqual(['desks']);
    expect(await cq.labels.get('desks')).toBe(`address,label,category,network\n${sender},Desk A,desk,\n`);
    const mine = await cq.evmErc20Transfer({ ...P, sender_category: 'desk', wallet_namespace: 'desks' }).json();
    expect(mine.events).toEqual(rows.filter((r) => r.sender === sender));
    const bad = await cq.labels.put('desks', 'address,label,category\nnope,a,b\n').catch((x: unknown) => x);
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(bad).toMatchObject({ code: 'invalid_body', body: { line: 2 } });
    expect(await cq.labels.delete('desks')).toMatchObject({ deleted: true });
    await expect(cq.labels.get('desks')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('401 → AuthenticationError', async () => {
    const cq = createClient({ baseUrl, apiKey: 'cq_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    await expect(cq.protocols()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('403 → QuotaExceededError with remaining and cost', async () => {
    const cq = await client('small');
    await cq.evmErc20Transfer(P).json();
    const e = await cq
      .evmErc20Transfer(P)
      .json()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ remaining: 50, cost: 100, code: 'quota_exceeded' });
  });

  it('404 → NotFoundError', async () => {
    const cq = await client('roomy');
    await expect(cq.get('/v1/evm/nothing')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('the 429 client rule of docs/metering.md', () => {
  it('waits Retry-After seconds and retries', async () => {
    clock.set('2025-12-10T12:00:10Z');
    const waits: number[] = [];
    // The test's sleep moves the server's clock instead of waiting.
    const cq = await client('two', {
      sleep: async (ms) => {
        waits.push(ms);
        clock.ms += ms;
      },
    });
    await cq.protocols();
    await cq.protocols();
    expect(await cq.protocols()).toContain('evm/erc20');
    expect(waits).toEqual([50_000]);
  });

  it('backs off exponentially on repeats, then gives up with RateLimitedError after maxRetries', async () => {
    clock.set('2025-12-10T13:00:10Z');
    const waits: number[] = [];
    // This sleep barely moves the clock, so the server keeps answering 429.
    const cq = await client('two', {
      maxRetries: 3,
      sleep: async (ms) => {
        waits.push(ms);
        clock.ms += 1;
      },
    });
    await cq.protocols();
    await cq.protocols();
    const e = await cq.protocols().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfter).toBe(50);
    expect(waits).toEqual([50_000, 100_000, 200_000]);
  });

  it('defaults the wait to 60 s when Retry-After is missing, and caps it', () => {
    expect(retryDelayMs(null, 0)).toBe(60_000);
    expect(retryDelayMs(null, 2)).toBe(240_000);
    expect(retryDelayMs('7', 1)).toBe(14_000);
    expect(retryDelayMs(new Date(Date.now() + 30_000).toUTCString(), 0)).toBeGreaterThanOrEqual(29_000);
    expect(retryDelayMs(null, 10)).toBe(15 * 60_000);
    expect(retryDelayMs(null, 0, { defaultRetryAfterSeconds: 5 })).toBe(5000);
  });
});
