/**
 * The engine alone, kept beside the server so that the two are timed in turn
 * (the latency scenario's quiet small-query ratio): DuckDB on a copy of the
 * store, read-only, running the small query's COPY to a file each time the
 * parent asks, and answering with the time it took. Interleaved, the engine
 * and the server meet the same moments of a noisy machine.
 * Plain JavaScript, so that no TypeScript loader shares its process.
 *
 * Usage (forked with IPC): engineQuiet.mjs '<json: {db, threads, memoryLimit, file, copies: [{sql, params, options}]}>'
 * Each message from the parent, an index into `copies`, runs that COPY once; the reply is {ms, bytes}.
 */
import fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const spec = JSON.parse(process.argv[2]);
const instance = await DuckDBInstance.create(spec.db, { access_mode: 'READ_ONLY', threads: String(spec.threads), memory_limit: spec.memoryLimit });
const conn = await instance.connect();

process.on('message', async (index) => {
  const copy = spec.copies[index];
  const t0 = performance.now();
  await conn.run(`COPY (${copy.sql}) TO '${spec.file}' ${copy.options}`, copy.params);
  const ms = performance.now() - t0;
  const bytes = fs.statSync(spec.file).size;
  fs.rmSync(spec.file, { force: true });
  process.send({ ms, bytes });
});
process.on('disconnect', () => {
  conn.closeSync();
  instance.closeSync();
  process.exit(0);
});
process.send({ ready: true });
