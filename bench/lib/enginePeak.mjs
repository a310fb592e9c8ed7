/**
 * The engine alone, in the barest process that can run it: Node with
 * @duckdb/node-api and nothing else, opening the store read-only with the
 * server's engine settings and running the given COPYs to a file. Prints its
 * RSS once the database is open and its peak RSS after the COPYs, in MiB: the
 * floor under the server's own peak while it streams the same results.
 * Plain JavaScript, so that no TypeScript loader adds to its memory.
 *
 * Usage: node enginePeak.mjs '<json: {db, memoryLimit, threads, runs, file, copies: [{sql, params, options}]}>'
 */
import fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const spec = JSON.parse(process.argv[2]);
const status = () => fs.readFileSync('/proc/self/status', 'utf8');
const mib = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) / 1024;

const instance = await DuckDBInstance.create(spec.db, { access_mode: 'READ_ONLY', threads: String(spec.threads), memory_limit: spec.memoryLimit });
const conn = await instance.connect();
await conn.run('SELECT 1');
const opened = mib(status(), 'VmRSS');
for (const copy of spec.copies) {
  for (let i = 0; i < spec.runs; i++) {
    await conn.run(`COPY (${copy.sql}) TO '${spec.file}' ${copy.options}`, copy.params);
    fs.rmSync(spec.file, { force: true });
  }
}
process.stdout.write(`${JSON.stringify({ opened_rss_mib: opened, peak_rss_mib: mib(status(), 'VmHWM') })}\n`);
conn.closeSync();
instance.closeSync();
