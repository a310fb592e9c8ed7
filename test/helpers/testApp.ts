/**
 * A real server over a real (in-memory) DuckDB store loaded with the demo
 * dataset, for HTTP tests through `app.inject()`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { generateDemo, type DemoOptions } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp, type AppOptions } from '../../src/server/createApp.ts';
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

export async function createTestApp(demo: DemoOptions | null = TEST_DEMO, appOptions: Omit<AppOptions, 'store'> = {}): Promise<TestApp> {
  const store = await createStore({ dataDir: null, threads: 2 });
  await loadSeed(store);
  if (demo) await generateDemo(store, demo);
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
