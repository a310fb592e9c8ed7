/**
 * EVM ingestion into ClickHouse (chDB in process) against ingestion into
 * DuckDB, from the same local anvil chain (205,000 ERC-20 Transfer events,
 * the chain of the ingest-evm scenario), each timed as an operator sees it:
 * from starting `chainq ingest evm --only erc20 --store …` to its exit. Each
 * engine runs three times, alternating, and keeps its faster run.
 *
 * Where the time goes, from the same runs: each run's ingestion loop (the
 * `done` line's seconds: fetching, decoding and writing every batch) apart
 * from the rest (process start, opening the store, which creates a new
 * store's tables, the seed import, closing); and the fetch floor, a bare
 * `eth_getLogs` sweep of the same range with chainq's 4 requests in flight,
 * which no ingestion into either engine can beat.
 */
import path from 'node:path';
import { startAnvil } from '../../test/helpers/anvil.ts';
import { runCli } from '../../test/helpers/cli.ts';
import { ingestEvmArgs } from '../../test/helpers/ingestEvm.ts';
import type { BenchContext, BenchResult } from '../types.ts';
import { buildChain, sweep } from './ingest-evm.ts';

const ROUNDS = 3;

interface Run {
  /** Process start to exit. */
  readonly total: number;
  /** The ingestion loop alone, as the run's `done` line reports it. */
  readonly loop: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const anvil = await startAnvil({ chainId: 1 });
  try {
    ctx.log('building the chain');
    const { from, to, events } = await buildChain(anvil);
    const runs: Record<'duckdb' | 'chdb', Run[]> = { duckdb: [], chdb: [] };
    const sweeps: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      sweeps.push((await sweep(anvil, from, to, 4)).seconds);
      for (const engine of ['duckdb', 'chdb'] as const) {
        const store = `${engine}:${path.join(ctx.workDir, `${engine}-${round}`)}`;
        const t0 = performance.now();
        const r = await runCli(ingestEvmArgs({ rpc: anvil.url, from, to, only: 'erc20', store }));
        const total = (performance.now() - t0) / 1000;
        if (r.code !== 0) throw new Error(`ingest into ${engine} failed: ${r.stderr}`);
        const done = r.logs.find((l) => l.event === 'done');
        if (typeof done?.seconds !== 'number') throw new Error(`ingest into ${engine} logged no done line with its seconds`);
        runs[engine].push({ total, loop: done.seconds });
        ctx.log(`${engine}: ${total.toFixed(2)} s (loop ${done.seconds.toFixed(2)} s)`);
      }
    }
    const fastest = (list: readonly Run[]): Run => list.reduce((a, b) => (b.total < a.total ? b : a));
    const duck = fastest(runs.duckdb);
    const ch = fastest(runs.chdb);
    const floor = Math.min(...sweeps);
    const loopOf = (list: readonly Run[]) => Math.min(...list.map((r) => r.loop));
    return {
      scenario: 'clickhouse-ingest',
      figures: [
        {
          name: `chainq ingest evm --only erc20 into chDB vs into DuckDB: ${events.toLocaleString('en-US')} Transfer events, ${to - from + 1} blocks`,
          ratio: events / ch.total / (events / duck.total),
          ratio_meaning: 'events/s into chDB ÷ events/s into DuckDB (higher is better for chDB)',
          baseline: 'the same command into a DuckDB store, same chain, same run',
          target: '>= 0.9',
          measured: {
            chdb_s: round2(ch.total),
            duckdb_s: round2(duck.total),
            chdb_events_per_s: Math.round(events / ch.total),
            duckdb_events_per_s: Math.round(events / duck.total),
            chdb_loop_s: round2(ch.loop),
            duckdb_loop_s: round2(duck.loop),
            chdb_outside_loop_s: round2(ch.total - ch.loop),
            duckdb_outside_loop_s: round2(duck.total - duck.loop),
            fetch_floor_s: round2(floor),
          },
        },
        {
          name: 'the ingestion loop alone (fetch, decode, write every batch), chDB vs DuckDB, fastest loop of each engine',
          ratio: loopOf(runs.duckdb) / loopOf(runs.chdb),
          ratio_meaning: "DuckDB's loop seconds ÷ chDB's (higher is better for chDB)",
          baseline: 'the DuckDB runs of the first figure',
          measured: { chdb_loop_s: round2(loopOf(runs.chdb)), duckdb_loop_s: round2(loopOf(runs.duckdb)), fetch_floor_s: round2(floor) },
        },
      ],
      notes: [
        `Each run is a \`chainq ingest evm\` process from start to exit (process start included on both sides); the faster of ${ROUNDS} runs per engine, runs alternating.`,
        'outside_loop_s: process start, opening the store (a new store: chDB loads its 550 MB library and creates its tables), the seed token and label import, closing.',
        "fetch_floor_s: a bare eth_getLogs sweep of the same range with chainq's 4 requests in flight (fetch and JSON.parse only), the fastest of the rounds.",
      ],
    };
  } finally {
    await anvil.stop();
  }
}
