/**
 * The engine-side half of the serve-erc20 scenario, run in its own process:
 * generate the data, then time DuckDB alone running each format's SQL to a
 * file (wall and CPU time; the last file stays for the delivery floor). A separate process guarantees the store's file lock is gone before
 * the server under test opens it. Prints one JSON object on stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { copyOptions, createStore } from '../../src/store/createStore.ts';
import { median } from './serverProcess.ts';

const [dataDir, workDir, scale, days, runs, ...urls] = process.argv.slice(2) as [string, string, string, string, string, ...string[]];
const store = await createStore({ dataDir });
await loadSeed(store);
await generateDemo(store, { scale: Number(scale), days: Number(days), only: ['evm/erc20'] });
const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw')!;
const out: Record<string, { ms: number; cpuMs: number; rows: number; sql: string; params: unknown; options: string; file: string }> = {};
for (const url of urls) {
  const q = Object.fromEntries(new URL(`http://x${url}`).searchParams);
  const plan = await planRaw({ store }, route, q);
  const times: number[] = [];
  const cpu: number[] = [];
  let rows = 0;
  // The last run's file stays: the delivery floor serves these bytes.
  const file = path.join(workDir, `baseline.${plan.format}`);
  for (let i = 0; i < Number(runs); i++) {
    fs.rmSync(file, { force: true });
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    rows = await store.copyToFile(plan.sql, plan.params, plan.format, file);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  out[plan.format] = { ms: median(times), cpuMs: median(cpu), rows, sql: plan.sql, params: plan.params, options: copyOptions(plan.format), file };
}
// The same rows, for the PostgreSQL comparison.
await store.copyToFile(
  `SELECT network, block_number, log_index, time, tx_hash, token_address, token, sender, receiver, amount FROM evm_erc20_transfer WHERE network = 'ETH' ORDER BY block_number, log_index`,
  {},
  'csv',
  path.join(workDir, 'pg-rows.csv'),
);
await store.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
