/** `chainq copy`: moves an embedded DuckDB store into ClickHouse (docs/storage.md). */
import type { Command } from 'commander';
import { copyIntoClickHouse } from '../store/openStore.ts';
import { describeTarget, parseStoreTarget } from '../store/target.ts';

interface CopyOptions {
  from: string;
  to: string;
}

export function registerCopy(program: Command): void {
  program
    .command('copy')
    .description('copy a DuckDB store into ClickHouse, part by part; run it again to resume; rows are then counted per dataset and network on both sides')
    .requiredOption('--from <target>', 'the store to read: duckdb:DIR (opened read-only; stop its server first)')
    .requiredOption('--to <target>', 'the store to fill: chdb:DIR or clickhouse://user:password@host:8123/database')
    .action(async (opts: CopyOptions) => {
      const from = parseStoreTarget(opts.from);
      const to = parseStoreTarget(opts.to);
      if (from.engine !== 'duckdb') throw new Error(`--from must be a DuckDB store (duckdb:DIR); ${describeTarget(from)} is not`);
      if (to.engine === 'duckdb') throw new Error(`--to must be a ClickHouse store (chdb:DIR or clickhouse://…); ${describeTarget(to)} is not`);
      const report = await copyIntoClickHouse(from.dir, to, (e) => {
        process.stdout.write(e.skipped ? `${e.part}: copied before, skipped\n` : `${e.part}: ${e.rows} rows\n`);
      });
      process.stdout.write(`${report.copied} parts copied, ${report.skipped} skipped (copied by an earlier run), ${report.rows} rows\n`);
      for (const m of report.mismatches) process.stdout.write(`MISMATCH ${m.table} ${m.scope}: ${m.source} rows in DuckDB, ${m.target} in ClickHouse\n`);
      if (report.mismatches.length) {
        process.exitCode = 1;
      } else {
        process.stdout.write(`verified: ${report.counts.length} dataset/network row counts equal on both sides\n`);
      }
    });
}
