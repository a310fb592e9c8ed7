/**
 * A real server over a real (in-memory) DuckDB store loaded with the demo
 * dataset, for HTTP tests through `app.inject()`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo, type DemoOptions } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp, type AppOptions } from '../../src/server/createApp.ts';
import { createClickHouseStore } from '../../src/store/clickhouse/createClickHouseStore.ts';
import { copyDuckDbToClickHouse } from '../../src/store/clickhouse/copyFromDuckDb.ts';
import { createStore, type Store } from '../../src/store/createStore.ts';

export interface TestApp {
  readonly store: Store;
  readonly app: FastifyInstance;
  readonly key: string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Half a day of demo data keeps test start-up to a couple of seconds. */
export const TEST_DEMO: DemoOptions = { days: 0.5 };

/**
 * The engine the API tests run on: DuckDB, or ClickHouse embedded through
 * chDB when CHAINQ_TEST_STORE=chdb (the `chdb` project of vitest.config.ts).
 */
export const TEST_ENGINE: 'duckdb' | 'chdb' = process.env.CHAINQ_TEST_STORE === 'chdb' ? 'chdb' : 'duckdb';

let chdbDatabases = 0;

/**
 * A store holding the seed and the demo: built in DuckDB, and on chDB copied
 * over with `chainq copy`'s code path. chDB binds one data directory per
 * process, so each store of a test process is a database of its own there.
 */
export async function createTestStore(demo: DemoOptions | null = TEST_DEMO, engine: 'duckdb' | 'chdb' = TEST_ENGINE): Promise<Store> {
  const duck = await createStore({ dataDir: null, threads: 2 });
  await loadSeed(duck);
  if (demo) await generateDemo(duck, demo);
  if (engine === 'duckdb') return duck;
  try {
    const database = `test_${process.pid}_${++chdbDatabases}`;
    const ch = await createClickHouseStore({ target: { engine: 'chdb', dir: chdbTestDir() }, database });
    const report = await copyDuckDbToClickHouse(duck, ch, 'test');
    if (report.mismatches.length) throw new Error(`copy to chDB lost rows: ${JSON.stringify(report.mismatches.slice(0, 5))}`);
    const close = ch.close;
    return Object.assign(ch, { close: async () => { await ch.command(`DROP DATABASE IF EXISTS ${database}`); await close(); } });
  } finally {
    await duck.close();
  }
}

/** One chDB data directory per test process, removed when the process exits. */
let chdbDir: string | null = null;
function chdbTestDir(): string {
  if (chdbDir) return chdbDir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return (chdbDir = dir);
}

export async function createTestApp(demo: DemoOptions | null = TEST_DEMO, appOptions: Omit<AppOptions, 'store'> = {}): Promise<TestApp> {
  const store = await createTestStore(demo);
  const app = await createApp({ ...appOptions, store });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return {
    store,
    app,
    key,
    get: (url, headers = {}) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } }),
    async close() {
      await app.close();
      await store.close();
    },
  };
}
