/**
 * Servers with metering under test control: custom plans, an injectable
 * clock, either backend, and real data (the demo) behind them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { generateDemo } from '../../src/demo/generate.ts';
import type { MeterBackend, UsageRow } from '../../src/metering/backend.ts';
import { createEmbeddedBackend } from '../../src/metering/embeddedBackend.ts';
import { createKey, findKey } from '../../src/metering/keys.ts';
import { createMeter, type Meter } from '../../src/metering/meter.ts';
import { parsePlans, type Plans } from '../../src/metering/plans.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp, type ExportOptions } from '../../src/server/createApp.ts';
import { spawnListening, type ListeningProcess } from './listening.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import type { ExportLaneLimits } from '../../src/store/exportLanes.ts';
import { demoTemplateFile, writeTestDemo } from './demoTemplate.ts';
import { createTestStore, TEST_DEMO, TEST_ENGINE } from './testApp.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** 100 ETH blocks of USDC transfers: costs the 100-block minimum. */
export const SMALL_QUERY = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23910100';
export const SMALL_COST = 100;

/**
 * The demo store of the API tests: in memory on the test project's engine
 * (DuckDB, or chDB for the `chdb` project), or a DuckDB store in `dataDir`
 * for a `chainq` process to open.
 */
export async function createDemoStore(dataDir: string | null = null): Promise<Store> {
  if (dataDir === null) return createTestStore(TEST_DEMO);
  await writeTestDemo(dataDir);
  return createStore({ dataDir, threads: 2 });
}

/**
 * The demo store in memory with these export lanes on DuckDB (chDB has no
 * lanes): for tests of downloads held open, where the lanes' room is part of
 * what is tested.
 */
export async function createDemoStoreWithLanes(lanes: ExportLaneLimits): Promise<Store> {
  if (TEST_ENGINE !== 'duckdb') return createDemoStore();
  const template = demoTemplateFile();
  if (template) return createStore({ dataDir: null, threads: 2, exportLanes: lanes, copyOf: template });
  const store = await createStore({ dataDir: null, threads: 2, exportLanes: lanes });
  await loadSeed(store);
  await generateDemo(store, TEST_DEMO);
  return store;
}

/** Plans from a literal, e.g. {tiny: {requests_per_minute: 3, monthly_blocks: 1000}}. */
export function plans(defs: Record<string, { requests_per_minute: number | null; monthly_blocks: number | null; concurrent_requests?: number | null; export_max_blocks?: number | null }>): Plans {
  return parsePlans(JSON.stringify({ plans: defs }), 'test plans');
}

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public ms: number) {}
  readonly now = (): number => this.ms;
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

export interface MeteredApp {
  readonly app: FastifyInstance;
  readonly meter: Meter;
  readonly store: Store;
  newKey(plan: string): Promise<string>;
  get(url: string, key: string): Promise<LightMyRequestResponse>;
  estimate(query: string, key: string): Promise<LightMyRequestResponse>;
  /** Charged usage of one key, per month. */
  usage(key: string): Promise<UsageRow[]>;
  close(): Promise<void>;
}

export async function createMeteredApp(store: Store, opts: { plans: Plans; clock?: TestClock; backend?: MeterBackend; stalledReaderMs?: number; exports?: ExportOptions }): Promise<MeteredApp> {
  const meter = createMeter({ backend: opts.backend ?? createEmbeddedBackend(store), plans: opts.plans, ...(opts.clock ? { clock: opts.clock.now } : {}) });
  const app = await createApp({ store, meter, ...(opts.stalledReaderMs !== undefined ? { stalledReaderMs: opts.stalledReaderMs } : {}), ...(opts.exports ? { exports: opts.exports } : {}) });
  return {
    app,
    meter,
    store,
    newKey: async (plan) => (await createKey(store, { plan })).key,
    get: (url, key) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }),
    estimate: (query, key) => app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': key }, payload: { query } }),
    async usage(key) {
      const record = await findKey(store, key);
      if (!record) throw new Error('no such key');
      return meter.backend.usage({ keyId: record.id });
    },
    async close() {
      await app.close();
      await meter.close();
    },
  };
}

export const METERING_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-request-cost', 'x-ratelimit-reset'] as const;

/** The four metering headers as numbers; fails when one is missing or not a plain integer. */
export function meteringOf(r: { headers: Record<string, unknown> }): Record<(typeof METERING_HEADERS)[number], number> {
  const out = {} as Record<(typeof METERING_HEADERS)[number], number>;
  for (const h of METERING_HEADERS) {
    const v = r.headers[h];
    if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new Error(`header ${h} is ${JSON.stringify(v)}, not a plain integer`);
    out[h] = Number(v);
  }
  return out;
}

/** A `chainq serve` process. */
export type ServerProcess = ListeningProcess;

export function spawnServer(args: readonly string[]): Promise<ServerProcess> {
  return spawnListening('chainq serve', [path.join(ROOT, 'bin/chainq.js'), 'serve', '--port', '0', '--log-level', 'warn', ...args], {
    cwd: ROOT,
    env: { ...process.env, UV_THREADPOOL_SIZE: '16' },
  });
}

export function writePlansFile(dir: string, defs: Record<string, { requests_per_minute: number | null; monthly_blocks: number | null; concurrent_streams?: number | null }>): string {
  const file = path.join(dir, 'plans.json');
  fs.writeFileSync(file, JSON.stringify({ plans: defs }, null, 2));
  return file;
}

/** The real store, except that every export fails before its first byte, also through a snapshot. */
export function failingEngine(store: Store): Store {
  const fail = async (): Promise<never> => {
    throw new Error('engine failed');
  };
  return { ...store, copyToStream: fail, snapshot: async () => ({ ...(await store.snapshot()), copyToStream: fail }) };
}

/**
 * The real store, except that every streamed export fails once its first
 * chunk was taken by the server: a server failure mid-stream, after the
 * status line went out. The failure waits for the server to ask for more,
 * so it comes after the first bytes however fast the engine is (chDB has
 * the whole result at once).
 */
export function breakingMidStream(store: Store): Store {
  return {
    ...store,
    // Requests export through a snapshot of the store: it breaks the same way.
    snapshot: async () => breakingMidStream(await store.snapshot()),
    async copyToStream(sql, params, format) {
      const exp = await store.copyToStream(sql, params, format);
      let handedOver = false;
      const fail = () => {
        exp.cancel();
        cut.destroy(new Error('engine failed mid-stream'));
      };
      // A high-water mark of one byte: once the first chunk is in, read() is called again only after the server took it.
      const cut = new Readable({
        highWaterMark: 1,
        read() {
          if (handedOver) fail();
        },
      });
      exp.stream.once('data', (c: Buffer) => {
        exp.stream.pause();
        handedOver = true;
        cut.push(c);
      });
      exp.stream.once('end', () => {
        if (!handedOver) fail();
      });
      return { stream: cut, done: exp.done, cancel: exp.cancel };
    },
  };
}
