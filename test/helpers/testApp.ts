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
import { createClickHouseStore, type ClickHouseStore } from '../../src/store/clickhouse/createClickHouseStore.ts';
import { copyDuckDbToClickHouse } from '../../src/store/clickhouse/copyFromDuckDb.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { demoTemplateFile, TEST_DEMO, writeTestDemo } from './demoTemplate.ts';

export { TEST_DEMO };

export interface TestApp {
  /** The store the app serves from. */
  readonly store: Store;
  /**
   * The same data in DuckDB, for tests that compute expected answers with SQL
   * of their own: the served store itself on DuckDB, the DuckDB the chDB
   * store was copied from on chDB.
   */
  readonly oracle: Store;
  readonly app: FastifyInstance;
  readonly key: string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * The engine the API tests run on: DuckDB, or ClickHouse embedded through
 * chDB when CHAINQ_TEST_STORE=chdb (the `chdb` project of vitest.config.ts).
 */
export const TEST_ENGINE: 'duckdb' | 'chdb' = process.env.CHAINQ_TEST_STORE === 'chdb' ? 'chdb' : 'duckdb';

let chdbDatabases = 0;
/** Whether this process's copy of the template database is taken by an open store. */
let templateTaken = false;
/** Whether a fixture changed the template database: later stores of this process are copied afresh. */
let templateSpent = false;
/** Stores whose rows a fixture changed (engineSql.ts). */
const changed = new WeakSet<Store>();

/** Notes that a fixture changed the rows of `store` (so that a later test store does not reuse them). */
export function noteChanged(store: Store): void {
  changed.add(store);
}

/** The demo store of the API tests, in DuckDB: for TEST_DEMO, a copy of the run's template (./demoTemplate.ts) when there is one. */
async function duckDemo(demo: DemoOptions | null): Promise<Store> {
  const template = demo === TEST_DEMO ? demoTemplateFile() : null;
  if (template) return createStore({ dataDir: null, threads: 2, copyOf: template });
  const duck = await createStore({ dataDir: null, threads: 2 });
  await loadSeed(duck);
  if (demo) await generateDemo(duck, demo);
  return duck;
}

/**
 * The DuckDB oracle of a chDB test store: for TEST_DEMO, a copy of the
 * global setup's DuckDB file (the very rows the chDB template was copied
 * from), which opens in a blink where generating the demo takes seconds.
 */
async function oracleDemo(demo: DemoOptions | null): Promise<Store> {
  const template = process.env.CHAINQ_TEST_CHDB_TEMPLATE;
  if (demo !== TEST_DEMO || !template || !fs.existsSync(path.join(template, 'duckdb'))) return duckDemo(demo);
  const dir = fs.mkdtempSync(path.join(path.dirname(template), 'chainq-oracle-'));
  fs.cpSync(path.join(template, 'duckdb'), dir, { recursive: true });
  const store = await createStore({ dataDir: dir, threads: 2 });
  const close = store.close;
  return Object.assign(store, {
    close: async () => {
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** Copies a DuckDB store into a new database of this process's chDB directory. */
async function copyToChdb(duck: Store, database: string): Promise<ClickHouseStore> {
  const ch = await createClickHouseStore({ target: { engine: 'chdb', dir: chdbTestDir() }, database });
  const report = await copyDuckDbToClickHouse(duck, ch, 'test');
  if (report.mismatches.length) throw new Error(`copy to chDB lost rows: ${JSON.stringify(report.mismatches.slice(0, 5))}`);
  return ch;
}

/**
 * The chDB project's global setup: the TEST_DEMO store as a DuckDB file in
 * `dir/duckdb` and as database `chainq` of the chDB directory `dir/chdb`.
 */
export async function buildChdbTemplate(dir: string): Promise<void> {
  chdbDir = path.join(dir, 'chdb');
  await writeTestDemo(path.join(dir, 'duckdb'));
  const duck = await createStore({ dataDir: path.join(dir, 'duckdb'), threads: 2 });
  try {
    const ch = await copyToChdb(duck, 'chainq');
    await ch.close();
  } finally {
    await duck.close();
  }
}

/**
 * A store holding the seed and the demo: built in DuckDB, and on chDB copied
 * over with `chainq copy`'s code path. chDB binds one data directory per
 * process: it starts as a copy of the global setup's template (test/chdbSetup.ts),
 * whose database serves the first TEST_DEMO store; any other store is a
 * database of its own, built and copied.
 */
export async function createTestStore(demo: DemoOptions | null = TEST_DEMO, engine: 'duckdb' | 'chdb' = TEST_ENGINE): Promise<Store> {
  const { served, oracle } = await createTestStores(demo, engine);
  if (oracle !== served) await oracle.close();
  return served;
}

/** The served store and its DuckDB oracle (the same store on DuckDB); closing the served store closes both. */
export async function createTestStores(demo: DemoOptions | null = TEST_DEMO, engine: 'duckdb' | 'chdb' = TEST_ENGINE): Promise<{ served: Store; oracle: Store }> {
  if (engine === 'duckdb') {
    const duck = await duckDemo(demo);
    return { served: duck, oracle: duck };
  }
  chdbTestDir();
  const duck = await oracleDemo(demo);
  let ch: ClickHouseStore;
  let release: () => void = () => undefined;
  try {
    if (demo === TEST_DEMO && templateCopied && !templateTaken && !templateSpent) {
      templateTaken = true;
      release = () => {
        templateTaken = false;
        if (changed.has(ch)) templateSpent = true;
      };
      ch = await createClickHouseStore({ target: { engine: 'chdb', dir: chdbTestDir() }, database: 'chainq' });
    } else {
      ch = await copyToChdb(duck, `test_${process.pid}_${++chdbDatabases}`);
    }
  } catch (e) {
    await duck.close();
    throw e;
  }
  const database = ch.database;
  const close = ch.close;
  openChdbStores++;
  const served = Object.assign(ch, {
    close: async () => {
      // The template's database stays for the next store of this process (keys added to it are harmless).
      if (database !== 'chainq') await ch.command(`DROP DATABASE IF EXISTS ${database}`);
      release();
      await close();
      await duck.close();
      if (--openChdbStores === 0) removeOwnChdbDir();
    },
  });
  return { served, oracle: duck };
}

/**
 * A store that holds nothing but the seed's schema and one key (plan
 * unlimited), opened again read-only, as a server with --redis opens it: a
 * DuckDB file, or a database of this process's chDB directory.
 */
export async function createReadOnlyTestStore(engine: 'duckdb' | 'chdb' = TEST_ENGINE): Promise<{ store: Store; key: string; close(): Promise<void> }> {
  if (engine === 'chdb') {
    const target = { engine: 'chdb' as const, dir: chdbTestDir() };
    const database = `test_ro_${process.pid}_${++chdbDatabases}`;
    const writable = await createClickHouseStore({ target, database });
    const { key } = await createKey(writable, { plan: 'unlimited' });
    await writable.close();
    const store = await createClickHouseStore({ target, database, readOnly: true });
    return {
      store,
      key,
      async close() {
        await store.close();
        const admin = await createClickHouseStore({ target, database });
        await admin.command(`DROP DATABASE IF EXISTS ${database}`);
        await admin.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ro-'));
  const writable = await createStore({ dataDir: dir, threads: 1 });
  const { key } = await createKey(writable, { plan: 'unlimited' });
  await writable.close();
  const store = await createStore({ dataDir: dir, threads: 1, readOnly: true });
  return {
    store,
    key,
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Test stores open on this process's chDB directory. */
let openChdbStores = 0;

/**
 * Outside the `chdb` project (no global setup, whose teardown removes every
 * copy), the directory goes with the last store on it: a worker stopped by
 * the test runner never runs its exit handlers.
 */
function removeOwnChdbDir(): void {
  if (chdbDir && !process.env.CHAINQ_TEST_CHDB_TEMPLATE) fs.rmSync(chdbDir, { recursive: true, force: true });
}

/** One chDB data directory per test process (a copy of the template when there is one), removed when the process exits. */
let chdbDir: string | null = null;
let templateCopied = false;
function chdbTestDir(): string {
  if (chdbDir) return chdbDir;
  const template = process.env.CHAINQ_TEST_CHDB_TEMPLATE;
  // Beside the template: the global setup's teardown removes them all.
  const dir = fs.mkdtempSync(path.join(template ? path.dirname(template) : os.tmpdir(), 'chainq-chdb-'));
  if (template && fs.existsSync(path.join(template, 'chdb'))) {
    fs.cpSync(path.join(template, 'chdb'), dir, { recursive: true });
    templateCopied = true;
  }
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  chdbDir = dir;
  return dir;
}

export async function createTestApp(demo: DemoOptions | null = TEST_DEMO, appOptions: Omit<AppOptions, 'store'> = {}): Promise<TestApp> {
  const { served: store, oracle } = await createTestStores(demo);
  const app = await createApp({ ...appOptions, store });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return {
    store,
    oracle,
    app,
    key,
    get: (url, headers = {}) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } }),
    async close() {
      await app.close();
      await store.close();
    },
  };
}
