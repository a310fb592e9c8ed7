/**
 * The latency scenario's mixed load on the engine alone: no HTTP, no server,
 * no metering. The same 64 clients cycle through the same requests, each
 * request the COPY the server would run (planned by latencyPrepare.ts),
 * admitted through the same lanes (8 light, 2 heavy at once); requests that
 * reach no engine (discovery) take no time. What a small query waits here is
 * what the engine and the lanes alone make it wait on this machine, the floor
 * under the server's figures. Plain JavaScript on @duckdb/node-api, so that
 * nothing but the engine shares the cores with the load.
 *
 * Usage: node engineLoad.mjs '<json: {db, threads, memoryLimit, dir, clients, seconds, quietRuns, light, heavy, small, mix: [{kind, sql, params, options, lane} | {kind}]}>'
 * Prints {quiet_p50_ms, small_p50_ms, small_p99_ms, small_requests, requests}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const spec = JSON.parse(process.argv[2]);
const instance = await DuckDBInstance.create(spec.db, { access_mode: 'READ_ONLY', threads: String(spec.threads), memory_limit: spec.memoryLimit });

/** At most `n` at once, first come first served. */
function semaphore(n) {
  let free = n;
  const waiting = [];
  return async () => {
    if (free > 0) free--;
    else await new Promise((resolve) => waiting.push(resolve));
    return () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    };
  };
}
const lanes = { light: semaphore(spec.light), heavy: semaphore(spec.heavy) };

let files = 0;
async function copy(conn, request) {
  const file = path.join(spec.dir, `engine-load-${files++}.out`);
  await conn.run(`COPY (${request.sql}) TO '${file}' ${request.options}`, request.params);
  fs.rmSync(file, { force: true });
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const quietConn = await instance.connect();
const quiet = [];
for (let i = 0; i < spec.quietRuns + 20; i++) {
  const t0 = performance.now();
  await copy(quietConn, spec.small);
  if (i >= 20) quiet.push(performance.now() - t0);
}

const small = [];
let requests = 0;
const end = performance.now() + spec.seconds * 1000;
await Promise.all(
  Array.from({ length: spec.clients }, async (_, client) => {
    const conn = await instance.connect();
    for (let i = client; performance.now() < end; i++) {
      const request = spec.mix[i % spec.mix.length];
      const t0 = performance.now();
      if (request.sql) {
        const release = await lanes[request.lane]();
        try {
          await copy(conn, request);
        } finally {
          release();
        }
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
      requests++;
      if (request.kind === 'small') small.push(performance.now() - t0);
    }
    conn.closeSync();
  }),
);
process.stdout.write(`${JSON.stringify({ quiet_p50_ms: quantile(quiet, 0.5), small_p50_ms: quantile(small, 0.5), small_p99_ms: quantile(small, 0.99), small_requests: small.length, requests })}\n`);
quietConn.closeSync();
instance.closeSync();
