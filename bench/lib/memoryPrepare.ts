/**
 * The store of the memory scenario's streaming figures, written in a process
 * of its own (so that its file lock is gone before the server opens it):
 * ERC-20 transfers at the serve-erc20 scenario's scale, about a million USDT
 * rows in the queried range. Prints, as JSON, each format's SQL, parameters
 * and COPY options for the engine-alone floor (enginePeak.mjs).
 */
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { copyOptions } from '../../src/store/duckdb/createDuckDbStore.ts';
import { createStore } from '../../src/store/openStore.ts';
import { routeQuery } from './routeQuery.ts';

const [dataDir, scale, days, ...urls] = process.argv.slice(2) as [string, string, string, ...string[]];
const store = await createStore({ dataDir });
await loadSeed(store);
await generateDemo(store, { scale: Number(scale), days: Number(days), only: ['evm/erc20'] });
const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw');
if (!route) throw new Error('no raw evm/erc20/transfer route');
const copies = [];
for (const url of urls) {
  const plan = await planRaw({ store }, route, routeQuery(route, url));
  copies.push({ sql: plan.sql, params: plan.params, options: copyOptions(plan.format) });
}
await store.close();
process.stdout.write(`${JSON.stringify(copies)}\n`);
