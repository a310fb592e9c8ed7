/**
 * The engine-side half of the exports scenario, each step in its own process
 * (the store admits one process at a time):
 *
 * - `generate <dataDir> <scale> <days>`: the demo's ERC-20 transfers, written
 *   and closed (checkpointed) before anything is timed.
 * - `engine <dataDir> <outDir> <spec>`: the baseline, in a fresh process as the
 *   export's server is: open the store with the engine settings `chainq serve`
 *   gives it by default, plan each partition's query as the server plans it,
 *   and time the store's engine writing them with the same COPY, one partition
 *   after another, each to its own Parquet file. Prints one JSON object: the
 *   time from the first COPY to the last, rows and bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { DEFAULT_MEMORY_LIMIT, engineSize, memoryBudget, parseMemorySize } from '../../src/cli/memoryLimit.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { plannerFor } from '../../src/query/planner.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { defaultLaneLimits } from '../../src/store/exportLanes.ts';
import { createStore } from '../../src/store/openStore.ts';

const [mode, dataDir, ...rest] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: exportsPrepare.ts generate|engine <dataDir> …');

if (mode === 'generate') {
  const [scale, days] = rest;
  const store = await createStore({ dataDir });
  await loadSeed(store);
  await generateDemo(store, { scale: Number(scale), days: Number(days), only: ['evm/erc20'] });
  await store.close();
} else if (mode === 'engine') {
  const [outDir, spec] = rest;
  if (!outDir || !spec) throw new Error('usage: exportsPrepare.ts engine <dataDir> <outDir> <spec>');
  const { params, partitions } = JSON.parse(spec) as { params: Record<string, string>; partitions: [number, number][] };
  // Opened as the server opens it: read-write, so that both start from the same state of the file, and with
  // the engine settings `chainq serve` gives it by default (threads, and the memory_limit its default memory
  // bound leaves the engine), so that the same COPY runs under the same settings on both sides.
  const threads = Math.max(2, os.availableParallelism());
  const lanes = defaultLaneLimits(threads);
  const engineBytes = memoryBudget(parseMemorySize(DEFAULT_MEMORY_LIMIT), lanes.light + (lanes.heavy ?? 0)).engineBytes;
  const store = await createStore({ dataDir, threads, memoryLimit: engineSize(engineBytes) });
  const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw');
  if (!route) throw new Error('no evm/erc20/transfer route');
  const plans = [];
  // As the export runner plans a partition: the range limit lifted, the range narrowed to the partition.
  const plan = plannerFor(route);
  for (const [start, end] of partitions) plans.push(await plan({ store, unlimitedRange: true }, route, { ...params, block_start: start, block_end: end, format: 'parquet' }));
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  let rows = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (const [n, plan] of plans.entries()) {
    const file = path.join(outDir, `part-${n}.parquet`);
    // The export's partitions wait in the heavy lane: so does the baseline (alone, it never waits).
    rows += await store.copyToFile(plan.sql, plan.params, plan.format, file, { lane: 'heavy' });
    bytes += fs.statSync(file).size;
  }
  const ms = performance.now() - t0;
  fs.rmSync(outDir, { recursive: true, force: true });
  await store.close();
  process.stdout.write(`${JSON.stringify({ ms, rows, bytes })}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
