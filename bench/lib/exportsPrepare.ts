/**
 * The engine-side half of the exports scenario, in its own process (the store
 * admits one process): generate the data, then time DuckDB alone writing the
 * export's partitions, each the same query the server plans for that
 * partition's blocks, COPY to its own Parquet file, one after another (the
 * median of `runs` passes). Prints one JSON object: the pass's time, rows and
 * bytes, and the small query's SQL for the quiet baseline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { median } from './serverProcess.ts';

const [dataDir, workDir, scale, days, runs, spec] = process.argv.slice(2) as [string, string, string, string, string, string];
const { params, partitions } = JSON.parse(spec) as { params: Record<string, string>; partitions: [number, number][] };
const store = await createStore({ dataDir });
await loadSeed(store);
await generateDemo(store, { scale: Number(scale), days: Number(days), only: ['evm/erc20'] });
const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw');
if (!route) throw new Error('no evm/erc20/transfer route');
const plans = [];
for (const [start, end] of partitions) plans.push(await planRaw({ store }, route, { ...params, block_start: String(start), block_end: String(end), format: 'parquet' }));
const dir = path.join(workDir, 'engine-alone');
const times: number[] = [];
let rows = 0;
let bytes = 0;
for (let i = 0; i < Number(runs); i++) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  rows = 0;
  bytes = 0;
  const t0 = performance.now();
  for (const [n, plan] of plans.entries()) {
    const file = path.join(dir, `part-${n}.parquet`);
    rows += await store.copyToFile(plan.sql, plan.params, plan.format, file);
    bytes += fs.statSync(file).size;
  }
  times.push(performance.now() - t0);
}
fs.rmSync(dir, { recursive: true, force: true });
await store.close();
process.stdout.write(`${JSON.stringify({ ms: median(times), runs: times, rows, bytes })}\n`);
