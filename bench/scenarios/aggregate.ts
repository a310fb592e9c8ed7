/**
 * A 100,000-block hourly aggregate over more than 2,000,000 events on ARB,
 * end to end over HTTP (plan, engine, fifo, encode, socket), as a ratio to
 * DuckDB running the very same SQL alone with COPY to a file.
 *
 * Two figures: ERC-20 transfers (one sum), and dex_v3 swaps with pivot
 * columns, means and with_value (four price joins per event).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { createKey } from '../../src/metering/keys.ts';
import { planAggregate } from '../../src/query/planAggregate.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { refreshPrices } from '../../src/reference/prices.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

const FIRST = 405_000_000;
const BLOCKS = 100_000;
const EVENTS = 2_200_000;
/** ARB: 345,600 blocks per day, 0.25 s each. */
const BLOCK_MS = 250;
const START = Date.UTC(2025, 11, 1);
const POOL = '0xc6962004f452be9203591991d15f6b388e09e8d0';
const RUNS = 7;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ts = (blockExpr: string) => `make_timestamp((${START} + (${blockExpr} - ${FIRST}) * ${BLOCK_MS}) * 1000)`;

async function load(store: Store, log: (m: string) => void): Promise<void> {
  await loadSeed(store);
  const t0 = Date.now();
  const [usdc] = await engineSql(store).all<{ address: string }>(`SELECT address FROM tokens WHERE network = 'ARB' AND symbol = 'USDC' AND address <> '' LIMIT 1`);
  const [weth] = await engineSql(store).all<{ address: string }>(`SELECT address FROM tokens WHERE network = 'ARB' AND symbol = 'WETH' AND address <> '' LIMIT 1`);
  if (!usdc || !weth) throw new Error('seed lacks ARB USDC/WETH');
  await engineSql(store).run(`INSERT INTO blocks SELECT 'ARB', ${FIRST} + i, ${ts(`${FIRST} + i`)}, 'h' || i, 'h' || (i - 1) FROM range(${BLOCKS + 1}) r(i)`);
  // Events spread over the blocks in order, as ingestion would write them.
  const events = `(SELECT i, ${FIRST} + (i * ${BLOCKS + 1}) // ${EVENTS} AS b, (hash(i) % 1000000) / 1e4 AS x FROM range(${EVENTS}) r(i))`;
  await engineSql(store).run(`INSERT INTO evm_erc20_transfer
    SELECT 'ARB', b, (row_number() OVER (PARTITION BY b ORDER BY i) - 1)::INTEGER, ${ts('b')}, 'tx' || i, '${usdc.address}', 'USDC', 6,
           '0xa' || (i % 5000), '0xb' || (i % 7000), CAST(round(x * 1e6) AS HUGEINT)::BIGNUM, round(x * 1e6) / 1e6
    FROM ${events} ORDER BY b, i`);
  const usdcIs0 = usdc.address < weth.address;
  const [t0sym, t1sym, t0addr, t1addr, t0dec, t1dec] = usdcIs0 ? ['USDC', 'WETH', usdc.address, weth.address, 6, 18] : ['WETH', 'USDC', weth.address, usdc.address, 18, 6];
  await engineSql(store).run(`INSERT INTO evm_dex_v3_swap
    SELECT 'ARB', b, (row_number() OVER (PARTITION BY b ORDER BY i) - 1)::INTEGER, ${ts('b')}, 'tx' || i, '${POOL}',
           '${t0addr}', '${t0sym}', ${t0dec}, '${t1addr}', '${t1sym}', ${t1dec},
           '0', a0, '0', a1, '0xs' || (i % 100), '0xr' || (i % 9000), '0xw' || (i % 9000),
           '0', 3000.0, '0', 2e18 + x * 1e12, 0
    FROM (SELECT *, CASE WHEN i % 2 = 0 THEN x / 3000 ELSE -x END AS weth_, CASE WHEN i % 2 = 0 THEN -x ELSE x / 3000 END AS usdc_,
                 ${usdcIs0 ? 'usdc_' : 'weth_'} AS a0, ${usdcIs0 ? 'weth_' : 'usdc_'} AS a1 FROM ${events})
    ORDER BY b, i`);
  await engineSql(store).run(`INSERT INTO pools VALUES ('ARB', '${POOL}', 500, '${t0addr}', '${t0sym}', ${t0dec}, '${t1addr}', '${t1sym}', ${t1dec}, NULL)`);
  // One ETH candle per minute of the window, for with_value.
  await engineSql(store).run(`INSERT INTO venue_a_klines SELECT 'ETH', make_timestamp(${START} * 1000) + to_minutes(m), c, c, c, c, 1, c, 1, 0.5
    FROM (SELECT m, 3000 + sin(m / 30.0) * 20 AS c FROM range(${Math.ceil((BLOCKS * BLOCK_MS) / 60_000) + 2}) r(m))`);
  await refreshPrices(store);
  for (const d of ['evm/erc20/transfer', 'evm/dex_v3/swap']) await engineSql(store).run(`INSERT INTO coverage VALUES ('${d}', 'ARB', ${FIRST}, ${FIRST + BLOCKS})`);
  await engineSql(store).run('CHECKPOINT');
  log(`loaded ${EVENTS.toLocaleString()} transfers and swaps over ${BLOCKS.toLocaleString()} ARB blocks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const store = await createStore({ dataDir: path.join(ctx.workDir, 'data') });
  try {
    await load(store, ctx.log);
    const app = await createApp({ store });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { key } = await createKey(store, { plan: 'unlimited' });
    const range = `network=ARB&block_start=${FIRST}&block_end=${FIRST + BLOCKS}&group_by=time&period=1h&format=parquet`;
    const queries = [
      { name: 'erc20 transfer, 100,000 ARB blocks, hourly, parquet', url: `/v1/evm/erc20/events/transfer/aggregate?${range}&token=USDC`, target: '<= 1.3' },
      { name: 'dex_v3 swap with pivots and with_value, 100,000 ARB blocks, hourly, parquet', url: `/v1/evm/dex_v3/events/swap/aggregate?${range}&symbol0=WETH&symbol1=USDC&fee=500&with_value=true` },
    ];
    const figures: BenchFigure[] = [];
    for (const q of queries) {
      const [pathPart, qs] = q.url.split('?') as [string, string];
      const route = dataRoutes().find((r) => r.path === pathPart)!;
      // Typed as the route's schema types them over HTTP, so that the baseline runs the very SQL the server runs.
      const query = Object.fromEntries(
        [...new URLSearchParams(qs)].map(([k, v]) => {
          const type = route.params[k]?.type;
          return [k, type === 'integer' || type === 'number' ? Number(v) : type === 'boolean' ? v === 'true' : v];
        }),
      );
      const plan = await planAggregate({ store }, route, query);
      const [{ n } = { n: 0n }] = await engineSql(store).all<{ n: bigint }>(
        `SELECT count(*) AS n FROM ${route.endpoint.table.name} WHERE network = 'ARB' AND block_number BETWEEN ${FIRST} AND ${FIRST + BLOCKS}`,
      );
      const file = path.join(ctx.workDir, 'alone.parquet');
      const alone: number[] = [];
      const e2e: number[] = [];
      let rows = 0;
      let bytes = 0;
      // One untimed round of each warms the caches, the JIT and the connection.
      await store.copyToFile(plan.sql, plan.params, 'parquet', file);
      await (await fetch(base + q.url, { headers: { 'x-api-key': key } })).arrayBuffer();
      for (let i = 0; i < RUNS; i++) {
        let t = performance.now();
        rows = await store.copyToFile(plan.sql, plan.params, 'parquet', file);
        alone.push(performance.now() - t);
        fs.rmSync(file, { force: true });
        t = performance.now();
        const res = await fetch(base + q.url, { headers: { 'x-api-key': key } });
        if (res.status !== 200) throw new Error(`${q.url} → ${res.status} ${await res.text()}`);
        bytes = (await res.arrayBuffer()).byteLength;
        e2e.push(performance.now() - t);
      }
      const ratio = median(e2e) / median(alone);
      ctx.log(`${q.name}: ${Number(n).toLocaleString()} events → ${rows} rows; alone ${median(alone).toFixed(0)} ms, end to end ${median(e2e).toFixed(0)} ms`);
      figures.push({
        name: q.name,
        ratio,
        ...('target' in q ? { target: q.target } : {}),
        ratio_meaning: 'end-to-end HTTP time / DuckDB running the same SQL alone (COPY to a file); lower is better, 1.0 is no overhead',
        baseline: 'the planned SQL with the same bound parameters, COPY … TO a file (FORMAT parquet) on the same store, same run',
        measured: {
          events: Number(n),
          buckets: rows,
          response_bytes: bytes,
          runs: RUNS,
          end_to_end_ms_median: Math.round(median(e2e)),
          alone_ms_median: Math.round(median(alone)),
          end_to_end_ms: e2e.map((x) => Math.round(x)).join(' '),
          alone_ms: alone.map((x) => Math.round(x)).join(' '),
        },
      });
    }
    await app.close();
    return {
      scenario: 'aggregate',
      figures,
      notes: [
        `${EVENTS.toLocaleString()} events per dataset over ${BLOCKS.toLocaleString()} ARB blocks (${((BLOCKS * BLOCK_MS) / 3_600_000).toFixed(1)} h), written straight into a file-backed store.`,
        'After one untimed warm-up of each, runs alternate between the baseline and the HTTP request; medians of each are compared.',
      ],
    };
  } finally {
    await store.close();
  }
}
