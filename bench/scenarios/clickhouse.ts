/**
 * The API on ClickHouse (chDB in process) against the API on DuckDB and
 * against the ClickHouse engine alone, over the same demo store moved with
 * `chainq copy`'s code:
 * - a 1,000-block ERC-20 query (JSON) and a 2-day hourly aggregate (JSON),
 *   end to end on chDB ÷ end to end on DuckDB;
 * - the same, end to end on chDB ÷ chDB running the rendered SQL alone with
 *   the same FORMAT, read to the end (target ≤ 1.3);
 * - a 10,000-block query (CSV, JSON), chDB writing DuckDB's bytes ÷ chDB
 *   writing its own JSONEachRow/CSVWithNames, engine alone;
 * - a 10,000-block query on a table 30× the demo's ÷ the same query on the
 *   demo table, on each engine (target ≤ 1.2: a query's cost follows its rows).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { DEMO_START_BLOCKS, generateDemo } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { planAggregate } from '../../src/query/planAggregate.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp } from '../../src/server/createApp.ts';
import { copyDuckDbToClickHouse } from '../../src/store/clickhouse/copyFromDuckDb.ts';
import { createClickHouseStore, type ClickHouseStore } from '../../test/helpers/clickhouseStore.ts';
import { clickHouseExport } from '../../src/store/clickhouse/format.ts';
import { renderClickHouse } from '../../src/store/clickhouse/render.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import type { BenchContext, BenchFigure, BenchResult } from '../types.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;
const RUNS = 9;
/**
 * Runs of each end-to-end query: its three sides (DuckDB, chDB, chDB alone)
 * alternate, and on a loaded machine one request's time moves by 2× from
 * one moment to the next, so the medians need more than RUNS.
 */
const QUERY_RUNS = 22;
/** Copies of the ETH transfers added past the demo's blocks to make the table 30× larger. */
const COPIES = 29;
const SHIFT = 1_000_000;

/** The parts to run (`CHAINQ_BENCH_CLICKHOUSE_ONLY=queries,formats,growth`); all by default. */
type Part = 'queries' | 'formats' | 'growth';
const PARTS: readonly Part[] = ['queries', 'formats', 'growth'];
function partsToRun(): ReadonlySet<Part> {
  const only = process.env.CHAINQ_BENCH_CLICKHOUSE_ONLY;
  if (!only) return new Set(PARTS);
  const picked = only.split(',').map((p) => p.trim());
  const unknown = picked.filter((p) => !PARTS.some((q) => q === p));
  if (unknown.length) throw new Error(`CHAINQ_BENCH_CLICKHOUSE_ONLY: unknown part ${unknown.join(', ')} (parts: ${PARTS.join(', ')})`);
  return new Set(PARTS.filter((p) => picked.includes(p)));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Served {
  readonly store: Store;
  readonly base: string;
  readonly key: string;
  close(): Promise<void>;
}

async function serve(store: Store): Promise<Served> {
  const app = await createApp({ store });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return { store, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, key, close: () => app.close() };
}

async function timeGet(s: Served, url: string): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const res = await fetch(s.base + url, { headers: { 'x-api-key': s.key } });
  if (res.status !== 200) throw new Error(`${url} → ${res.status} ${await res.text()}`);
  const bytes = (await res.arrayBuffer()).byteLength;
  return { ms: performance.now() - t, bytes };
}

/** The planned query as the server would run it, typed as the route's schema types it over HTTP. */
async function planOf(store: Store, url: string) {
  const [pathPart, qs] = url.split('?') as [string, string];
  const route = dataRoutes().find((r) => r.path === pathPart)!;
  const query = Object.fromEntries(
    [...new URLSearchParams(qs)].map(([k, v]) => {
      const type = route.params[k]?.type;
      return [k, type === 'integer' || type === 'number' ? Number(v) : type === 'boolean' ? v === 'true' : v];
    }),
  );
  return pathPart.endsWith('/aggregate') ? planAggregate({ store }, route, query) : planRaw({ store }, route, query);
}

/** chDB running the rendered statement alone, with the API's FORMAT, read to the end. */
async function engineAlone(ch: ClickHouseStore, url: string): Promise<number> {
  const plan = await planOf(ch, url);
  // The statement is rendered for the request's format: run it with that format's FORMAT and settings.
  const out = clickHouseExport(plan.format);
  const t = performance.now();
  const r = await ch.client.exec({ query: `${plan.sql} FORMAT ${out.format}`, query_params: plan.params as Record<string, unknown>, clickhouse_settings: { ...out.settings } });
  for await (const _ of r.stream) {
    /* read to the end */
  }
  return performance.now() - t;
}

/**
 * chDB running the same query with ClickHouse's own text formats instead of
 * DuckDB's bytes: the description rendered with typed columns (as for
 * Parquet), written as JSONEachRow or CSVWithNames, read to the end.
 */
async function ownFormatAlone(ch: ClickHouseStore, url: string): Promise<number> {
  const plan = await planOf(ch, url);
  const typed = renderClickHouse(plan.query, 'parquet', { database: ch.database });
  const t = performance.now();
  const r = await ch.client.exec({
    query: `${typed.sql} FORMAT ${plan.format === 'csv' ? 'CSVWithNames' : 'JSONEachRow'}`,
    query_params: typed.params,
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  for await (const _ of r.stream) {
    /* read to the end */
  }
  return performance.now() - t;
}

async function grow(duck: Store, ch: ClickHouseStore): Promise<void> {
  for (let k = 1; k <= COPIES; k++) {
    const shift = k * SHIFT;
    await engineSql(duck).run(`INSERT INTO evm_erc20_transfer SELECT * REPLACE (block_number + ${shift} AS block_number) FROM evm_erc20_transfer
      WHERE network = 'ETH' AND block_number < ${ETH0 + SHIFT}`);
    // ClickHouse's WHERE sees SELECT aliases (REPLACE makes one), so the filter runs in a subquery.
    await ch.command(`INSERT INTO ${ch.table('evm_erc20_transfer')} SELECT * REPLACE (block_number + ${shift} AS block_number)
      FROM (SELECT * FROM ${ch.table('evm_erc20_transfer')} WHERE network = 'ETH' AND block_number < ${ETH0 + SHIFT})`);
  }
  await ch.command(`OPTIMIZE TABLE ${ch.table('evm_erc20_transfer')} FINAL`);
}

const NOTES = [
  'chDB is ClickHouse embedded in the bench process; its connection adapter materialises each result before handing it over, which a ClickHouse server does not.',
  'Runs alternate between the engines; medians are compared. Ingestion into chDB vs DuckDB: bench/results/clickhouse-ingest.json.',
];

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const parts = partsToRun();
  // A pair of stores made before (`duck/` and `chdb/` of an earlier run's work directory, before its growth part), copied instead of built.
  const prepared = process.env.CHAINQ_BENCH_CLICKHOUSE_DATA;
  if (prepared) {
    for (const d of ['duck', 'chdb']) fs.cpSync(path.join(prepared, d), path.join(ctx.workDir, d), { recursive: true });
  }
  const duck = await createStore({ dataDir: path.join(ctx.workDir, 'duck') });
  let ch: ClickHouseStore | null = null;
  const figures: BenchFigure[] = [];
  try {
    let t0 = Date.now();
    let storeNote: string;
    if (prepared) {
      ch = await createClickHouseStore({ target: { engine: 'chdb', dir: path.join(ctx.workDir, 'chdb') } });
      storeNote = `Demo store, 2 days, built in DuckDB and copied into chDB with the code of \`chainq copy\` by an earlier run (CHAINQ_BENCH_CLICKHOUSE_DATA).`;
    } else {
      await loadSeed(duck);
      await generateDemo(duck, { days: 2 });
      ctx.log(`demo (2 days) generated in DuckDB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      ch = await createClickHouseStore({ target: { engine: 'chdb', dir: path.join(ctx.workDir, 'chdb') } });
      t0 = Date.now();
      const copy = await copyDuckDbToClickHouse(duck, ch, 'bench');
      const copySeconds = (Date.now() - t0) / 1000;
      ctx.log(`copied ${copy.rows.toLocaleString()} rows into chDB in ${copySeconds.toFixed(1)} s`);
      storeNote = `Demo store, 2 days (${copy.rows.toLocaleString()} rows), built in DuckDB and copied into chDB (${copySeconds.toFixed(1)} s) with the code of \`chainq copy\`.`;
    }

    const queries = [
      { name: 'erc20 transfer, 1,000 ETH blocks, json', url: `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 1000}&token=USDT` },
      {
        name: 'erc20 transfer aggregate, 10,000 ETH blocks, hourly, json',
        url: `/v1/evm/erc20/events/transfer/aggregate?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 10_000}&token=USDT&group_by=time&period=1h`,
      },
    ];
    const d = await serve(duck);
    const c = await serve(ch);
    try {
      for (const q of parts.has('queries') ? queries : []) {
        const onDuck: number[] = [];
        const onCh: number[] = [];
        const alone: number[] = [];
        let bytes = 0;
        await timeGet(d, q.url);
        await timeGet(c, q.url);
        await engineAlone(ch, q.url);
        const chStore = ch;
        const sides = [
          async () => onDuck.push((await timeGet(d, q.url)).ms),
          async () => {
            const r = await timeGet(c, q.url);
            onCh.push(r.ms);
            bytes = r.bytes;
          },
          async () => alone.push(await engineAlone(chStore, q.url)),
        ];
        // chDB's end-to-end times by the side that ran just before: the order the runs had before
        // (DuckDB, chDB, chDB alone) put every chDB request right after a DuckDB one, and none of chDB alone.
        const afterDuck: number[] = [];
        const afterOther: number[] = [];
        const aloneAfterDuck: number[] = [];
        const aloneAfterOther: number[] = [];
        let previous = -1;
        for (let i = 0; i < QUERY_RUNS; i++) {
          // DuckDB, then chDB end to end and chDB alone, these two in turns: each of them follows
          // DuckDB's request half the time, and the other one the other half, so that what DuckDB
          // leaves behind (its threads winding down, a background apply of charges) falls on both alike.
          for (const side of i % 2 === 0 ? [0, 1, 2] : [0, 2, 1]) {
            await sides[side]?.();
            if (side === 1) (previous === 0 ? afterDuck : afterOther).push(onCh[onCh.length - 1] ?? Number.NaN);
            if (side === 2) (previous === 0 ? aloneAfterDuck : aloneAfterOther).push(alone[alone.length - 1] ?? Number.NaN);
            previous = side;
          }
        }
        ctx.log(`${q.name}: duckdb ${median(onDuck).toFixed(1)} ms, chdb ${median(onCh).toFixed(1)} ms, chdb alone ${median(alone).toFixed(1)} ms`);
        figures.push({
          name: `${q.name}: chDB end to end ÷ DuckDB end to end`,
          ratio: median(onCh) / median(onDuck),
          ratio_meaning: 'the API on chDB / the API on DuckDB, same request, same data; lower is better for chDB',
          baseline: 'the same request to a server on the DuckDB store the chDB store was copied from, same run',
          measured: { runs: QUERY_RUNS, response_bytes: bytes, chdb_ms_median: +median(onCh).toFixed(1), duckdb_ms_median: +median(onDuck).toFixed(1) },
        });
        figures.push({
          name: `${q.name}: chDB end to end ÷ chDB engine alone`,
          ratio: median(onCh) / median(alone),
          ratio_meaning: 'end-to-end HTTP time on chDB / chDB running the rendered statement alone with the same FORMAT, read to the end',
          baseline: "client.exec of the planned, rendered SQL with its parameters and its format's FORMAT and settings, same store, same run",
          target: '<= 1.3',
          measured: {
            runs: QUERY_RUNS,
            end_to_end_ms_median: +median(onCh).toFixed(1),
            alone_ms_median: +median(alone).toFixed(1),
            // Each run's end to end over the engine alone right after it: the two met nearly the same moment of the machine.
            paired_ratio_median: +median(onCh.map((ms, i) => ms / (alone[i] ?? Number.NaN))).toFixed(3),
            end_to_end_ms_median_right_after_duckdb: +median(afterDuck).toFixed(1),
            end_to_end_ms_median_after_chdb_alone: +median(afterOther).toFixed(1),
            alone_ms_median_right_after_duckdb: +median(aloneAfterDuck).toFixed(1),
            alone_ms_median_after_chdb_end_to_end: +median(aloneAfterOther).toFixed(1),
          },
        });
      }

      const q10k = `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 10_000}&token=USDT&format=csv`;
      // What writing DuckDB's bytes costs the engine (docs/storage.md, "The same bytes on both engines").
      const formatQueries = [
        { name: 'erc20 transfer, 10,000 ETH blocks, csv', url: q10k },
        { name: 'erc20 transfer, 10,000 ETH blocks, json', url: q10k.replace('format=csv', 'format=json') },
      ];
      for (const q of parts.has('formats') ? formatQueries : []) {
        const duckBytes: number[] = [];
        const own: number[] = [];
        await engineAlone(ch, q.url);
        await ownFormatAlone(ch, q.url);
        for (let i = 0; i < RUNS; i++) {
          duckBytes.push(await engineAlone(ch, q.url));
          own.push(await ownFormatAlone(ch, q.url));
        }
        figures.push({
          name: `${q.name}: chDB writing DuckDB's bytes ÷ chDB writing its own format, engine alone`,
          ratio: median(duckBytes) / median(own),
          ratio_meaning: "the rendered statement with the API's FORMAT (fields made to DuckDB's bytes in the engine) / the same rows written by ClickHouse's JSONEachRow or CSVWithNames",
          baseline: 'client.exec of the same query description rendered with typed columns, FORMAT JSONEachRow or CSVWithNames, same store, same run',
          measured: { runs: RUNS, duckdb_bytes_ms_median: +median(duckBytes).toFixed(1), own_format_ms_median: +median(own).toFixed(1) },
        });
      }
      if (!parts.has('growth')) return { scenario: 'clickhouse', figures, notes: [storeNote, ...NOTES, `Parts run: ${[...parts].join(', ')}.`] };
      const before = { duck: [] as number[], ch: [] as number[] };
      await timeGet(d, q10k);
      await timeGet(c, q10k);
      for (let i = 0; i < RUNS; i++) {
        before.duck.push((await timeGet(d, q10k)).ms);
        before.ch.push((await timeGet(c, q10k)).ms);
      }
      t0 = Date.now();
      await grow(duck, ch);
      const [n] = await ch.query<{ n: number }>(`SELECT count() AS n FROM ${ch.table('evm_erc20_transfer')} WHERE network = 'ETH'`);
      const [m] = await engineSql(duck).all<{ n: bigint }>(`SELECT count(*) AS n FROM evm_erc20_transfer WHERE network = 'ETH'`);
      if (Number(m?.n) !== Number(n?.n)) throw new Error(`the grown tables differ: DuckDB ${m?.n} rows, chDB ${n?.n}`);
      ctx.log(`ETH transfers grown to ${Number(n?.n).toLocaleString()} rows (30×) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const after = { duck: [] as number[], ch: [] as number[] };
      await timeGet(d, q10k);
      await timeGet(c, q10k);
      for (let i = 0; i < RUNS; i++) {
        after.duck.push((await timeGet(d, q10k)).ms);
        after.ch.push((await timeGet(c, q10k)).ms);
      }
      for (const engine of ['duck', 'ch'] as const) {
        const label = engine === 'duck' ? 'DuckDB' : 'chDB';
        figures.push({
          name: `10,000-block ERC-20 query (csv) on a table 30× the demo ÷ on the demo table, ${label}`,
          ratio: median(after[engine]) / median(before[engine]),
          ratio_meaning: 'latency with the ETH transfer table 30× larger (same rows returned) / latency on the demo table; 1.0 means the cost follows the rows returned',
          baseline: 'the same request on the same server before the table grew, same run',
          target: '<= 1.2',
          measured: { runs: RUNS, table_rows_after: Number(n?.n), demo_ms_median: +median(before[engine]).toFixed(1), grown_ms_median: +median(after[engine]).toFixed(1) },
        });
      }
    } finally {
      await d.close();
      await c.close();
    }
    return {
      scenario: 'clickhouse',
      figures,
      notes: [storeNote, ...NOTES, ...(parts.size < PARTS.length ? [`Parts run: ${[...parts].join(', ')}.`] : [])],
    };
  } finally {
    await ch?.close();
    await duck.close();
  }
}
