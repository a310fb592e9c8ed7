/**
 * The engine-side half of the latency scenario, in its own process (the store
 * admits one process): load the demo, then time DuckDB alone producing the
 * small query's bytes (the same SQL, COPY to a file in /dev/shm), one query
 * after another as the one HTTP client sends them; and plan every request of
 * the mixed load to its SQL, COPY options and lane, for the engine-alone run
 * of the same load (bench/lib/engineLoad.mjs). Prints one JSON object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { laneOf } from '../../src/query/lane.ts';
import { plannerFor } from '../../src/query/planner.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { copyOptions } from '../../src/store/duckdb/createDuckDbStore.ts';
import { routeQuery } from './routeQuery.ts';

const [dataDir, url, runs, ...mix] = process.argv.slice(2) as [string, string, string, ...string[]];
const store = await createStore({ dataDir, threads: Math.max(2, os.availableParallelism()) });
await loadSeed(store);
await generateDemo(store, {});
const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw')!;
const plan = await planRaw({ store }, route, routeQuery(route, url));
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const file = path.join(dir, `chainq-latency-${process.pid}.${plan.format}`);
const times: number[] = [];
for (let i = 0; i < Number(runs) + 20; i++) {
  const t0 = performance.now();
  await store.copyToFile(plan.sql, plan.params, plan.format, file);
  if (i >= 20) times.push(performance.now() - t0);
}
// Each request of the mix as the server would run it; requests that reach no engine (discovery) are null.
const planned = [];
for (const u of mix) {
  const target = new URL(`http://x${u}`);
  const dataRoute = dataRoutes().find((r) => r.path === target.pathname);
  if (!dataRoute) {
    planned.push(null);
    continue;
  }
  const p = await plannerFor(dataRoute)({ store }, dataRoute, routeQuery(dataRoute, u));
  planned.push({ sql: p.sql, params: p.params, options: copyOptions(p.format), lane: laneOf(p.cost.cost) });
}
const bytes = fs.statSync(file).size;
fs.rmSync(file, { force: true });
await store.close();
times.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ p50: times[Math.floor(times.length / 2)], bytes, sql: plan.sql, mix: planned })}\n`);
