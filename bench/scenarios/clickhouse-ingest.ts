/**
 * EVM ingestion into ClickHouse (chDB in process) against ingestion into
 * DuckDB, from the same local anvil chain (205,000 ERC-20 Transfer events,
 * the chain of the ingest-evm scenario), each timed as an operator sees it:
 * from starting `chainq ingest evm --only erc20 --store …` to its exit. Each
 * engine runs twice, alternating, and keeps its faster run.
 */
import path from 'node:path';
import { startAnvil } from '../../test/helpers/anvil.ts';
import { runCli } from '../../test/helpers/cli.ts';
import { ingestEvmArgs } from '../../test/helpers/ingestEvm.ts';
import type { BenchContext, BenchResult } from '../types.ts';
import { buildChain } from './ingest-evm.ts';

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const anvil = await startAnvil({ chainId: 1 });
  try {
    ctx.log('building the chain');
    const { from, to, events } = await buildChain(anvil);
    const times: Record<'duckdb' | 'chdb', number[]> = { duckdb: [], chdb: [] };
    for (let round = 0; round < 2; round++) {
      for (const engine of ['duckdb', 'chdb'] as const) {
        const store = `${engine}:${path.join(ctx.workDir, `${engine}-${round}`)}`;
        const t0 = performance.now();
        const r = await runCli(ingestEvmArgs({ rpc: anvil.url, from, to, only: 'erc20', store }));
        const seconds = (performance.now() - t0) / 1000;
        if (r.code !== 0) throw new Error(`ingest into ${engine} failed: ${r.stderr}`);
        times[engine].push(seconds);
        ctx.log(`${engine}: ${seconds.toFixed(2)} s`);
      }
    }
    const duck = Math.min(...times.duckdb);
    const ch = Math.min(...times.chdb);
    return {
      scenario: 'clickhouse-ingest',
      figures: [
        {
          name: `chainq ingest evm --only erc20 into chDB vs into DuckDB: ${events.toLocaleString('en-US')} Transfer events, ${to - from + 1} blocks`,
          ratio: events / ch / (events / duck),
          ratio_meaning: 'events/s into chDB ÷ events/s into DuckDB (higher is better for chDB)',
          baseline: 'the same command into a DuckDB store, same chain, same run',
          measured: { chdb_s: Math.round(ch * 100) / 100, duckdb_s: Math.round(duck * 100) / 100, chdb_events_per_s: Math.round(events / ch), duckdb_events_per_s: Math.round(events / duck) },
        },
      ],
      notes: ['Each run is a `chainq ingest evm` process from start to exit (process start included on both sides); the faster of two runs per engine, runs alternating.'],
    };
  } finally {
    await anvil.stop();
  }
}
