/**
 * A venue_a trades day (1,000,000 rows of the archive's CSV) loaded through
 * `store.venues.importCsv` into chDB, against the same call into DuckDB, in
 * the same run. On ClickHouse the unit is written by DuckDB SQL in the
 * scratch store and then published (docs/storage.md, "Venue writes"): the
 * file is parsed by DuckDB and its rows shipped to ClickHouse as CSV again.
 * Beside it, a floor: chDB reading the same file itself (file(), the same
 * casts for this file's columns), the rows only, without coverage or the
 * file's record. Each side runs twice, alternating; the faster run counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { VENUE_A_SPECS } from '../../src/ingest/venues/venueAArchive.ts';
import { createClickHouseStore } from '../../test/helpers/clickhouseStore.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { VenueCsvImport } from '../../src/store/types.ts';
import type { BenchContext, BenchResult } from '../types.ts';

const ROWS = 1_000_000;
const DAY = Date.UTC(2024, 0, 1);

function writeTrades(file: string): void {
  const lines = ['id,price,qty,quote_qty,time,is_buyer_maker'];
  for (let i = 0; i < ROWS; i++) {
    const p = 40000 + Math.sin(i) * 100;
    const q = ((i * 7919) % 1000) / 1000 + 0.001;
    lines.push(`${1_000_000 + i},${p.toFixed(2)},${q.toFixed(5)},${(p * q).toFixed(6)},${DAY + Math.floor((i * 86_400_000) / ROWS)},${i % 3 === 0}`);
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const file = path.join(ctx.workDir, 'trades.csv');
  writeTrades(file);
  const spec = VENUE_A_SPECS.trades;
  const unit = (round: number): VenueCsvImport => ({
    token: 'BTC',
    table: spec.table,
    lo: DAY,
    hi: DAY + 86_400_000 - 1,
    datasets: spec.datasets,
    file,
    header: true,
    csvColumns: spec.csvColumns,
    values: spec.values,
    orderBy: spec.orderBy,
    source: 'bench',
    path: `trades-${round}.zip`,
    sha256: String(round),
  });
  const duck = await createStore({ dataDir: path.join(ctx.workDir, 'duckdb') });
  const ch = await createClickHouseStore({ target: { engine: 'chdb', dir: path.join(ctx.workDir, 'chdb') } });
  const times = { duckdb: [] as number[], chdb: [] as number[], floor: [] as number[] };
  const timed = async (into: number[], label: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    into.push((performance.now() - t0) / 1000);
    ctx.log(`${label}: ${into.at(-1)?.toFixed(2)} s`);
  };
  try {
    for (let round = 0; round < 2; round++) {
      await timed(times.duckdb, 'duckdb importCsv', () => duck.venues.importCsv(unit(round)));
      await timed(times.chdb, 'chdb importCsv', () => ch.venues.importCsv(unit(round)));
      const held = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table(spec.table)}`);
      if (Number(held[0]?.n) !== ROWS) throw new Error(`chDB holds ${held[0]?.n} rows after the import, not ${ROWS}`);
      await ch.command(`CREATE TABLE IF NOT EXISTS ${ch.table('venue_a_trades_floor')} AS ${ch.table(spec.table)}`);
      await ch.command(`TRUNCATE TABLE ${ch.table('venue_a_trades_floor')}`);
      await timed(times.floor, 'chdb reading the file itself', () =>
        ch.client.command({
          query: `INSERT INTO ${ch.table('venue_a_trades_floor')}
            SELECT 'BTC', fromUnixTimestamp64Milli(toInt64(time), 'UTC'), toInt64(id), toFloat64(price), toFloat64(qty), toFloat64(quote_qty), NOT toBool(is_buyer_maker)
            FROM file({file:String}, 'CSVWithNames', 'id String, price String, qty String, quote_qty String, time String, is_buyer_maker String')
            ORDER BY 2, 3`,
          query_params: { file },
        }),
      );
    }
  } finally {
    await duck.close();
    await ch.close();
  }
  const best = (xs: number[]) => Math.min(...xs);
  const [d, c, f] = [best(times.duckdb), best(times.chdb), best(times.floor)];
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    scenario: 'clickhouse-venue',
    figures: [
      {
        name: `store.venues.importCsv of a venue_a trades day (${ROWS.toLocaleString('en-US')} rows) into chDB vs into DuckDB`,
        ratio: c / d,
        ratio_meaning: 'seconds into chDB ÷ seconds into DuckDB (lower is better for chDB)',
        baseline: 'the same call into a DuckDB store, same file, same run',
        measured: { chdb_s: round2(c), duckdb_s: round2(d), chdb_reading_the_file_itself_s: round2(f) },
      },
      {
        name: 'the same import into chDB vs chDB reading the file itself (rows only, no coverage, no file record)',
        ratio: c / f,
        ratio_meaning: "seconds of importCsv into chDB ÷ seconds of chDB's own INSERT … SELECT FROM file() of the same CSV",
        baseline: 'chDB reading the same file, same run',
        measured: { chdb_s: round2(c), floor_s: round2(f) },
      },
    ],
    notes: ['In-process calls on stores opened once (no process start); the faster of two runs per side, runs alternating.'],
  };
}
