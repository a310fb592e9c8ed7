/**
 * The engine-side half of the serve-erc20 scenario, run in its own process:
 * generate the data, then time DuckDB alone running each format's SQL to a
 * file (wall and CPU time; the last file stays for the delivery floor). A separate process guarantees the store's file lock is gone before
 * the server under test opens it. Then, for the pipe floor, the same COPY
 * into a fifo that this process reads through its event loop (what the
 * server does before any HTTP), timed in turn with the COPY to a file.
 * Prints one JSON object on stdout.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { generateDemo } from '../../src/demo/generate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { copyOptions } from '../../src/store/duckdb/createDuckDbStore.ts';
import { median } from './serverProcess.ts';
import { routeQuery } from './routeQuery.ts';

const [dataDir, workDir, scale, days, runs, ...urls] = process.argv.slice(2) as [string, string, string, string, string, ...string[]];
const store = await createStore({ dataDir });
await loadSeed(store);
await generateDemo(store, { scale: Number(scale), days: Number(days), only: ['evm/erc20'] });
const route = dataRoutes().find((r) => r.endpoint.id === 'evm/erc20/transfer' && r.kind === 'raw')!;
const out: Record<string, { ms: number; cpuMs: number; rows: number; sql: string; params: unknown; options: string; file: string; pipe: { fileMs: number; fifoMs: number } }> = {};
let fifos = 0;
/** The COPY into a fifo read by a non-blocking socket on this process's event loop, as the server reads its exports. */
async function copyThroughPipe(sql: string, params: Parameters<typeof store.copyToFile>[1], format: Parameters<typeof store.copyToFile>[2]): Promise<number> {
  const fifo = path.join(workDir, `pipe-floor-${fifos++}`);
  execFileSync('mkfifo', ['-m', '600', fifo]);
  const t0 = performance.now();
  const socket = new net.Socket({ fd: fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
  socket.on('data', () => undefined);
  const ended = new Promise((resolve, reject) => {
    socket.on('end', resolve);
    socket.on('error', reject);
  });
  await store.copyToFile(sql, params, format, fifo);
  await ended;
  const ms = performance.now() - t0;
  socket.destroy();
  fs.rmSync(fifo, { force: true });
  return ms;
}
for (const url of urls) {
  const q = routeQuery(route, url);
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
  // The pipe floor: the COPY to a file and into a fifo read by Node, in turn.
  const toFile: number[] = [];
  const toPipe: number[] = [];
  const scratch = path.join(workDir, `pipe-floor.${plan.format}`);
  for (let i = 0; i < Number(runs) + 2; i++) {
    const t0 = performance.now();
    await store.copyToFile(plan.sql, plan.params, plan.format, scratch);
    toFile.push(performance.now() - t0);
    fs.rmSync(scratch, { force: true });
    toPipe.push(await copyThroughPipe(plan.sql, plan.params, plan.format));
  }
  const pipe = { fileMs: median(toFile), fifoMs: median(toPipe) };
  out[plan.format] = { ms: median(times), cpuMs: median(cpu), rows, sql: plan.sql, params: plan.params, options: copyOptions(plan.format), file, pipe };
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
