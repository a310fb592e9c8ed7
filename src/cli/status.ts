import type { Command } from 'commander';
import { operate, runningServer } from './operate.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP } from './options.ts';

export function registerStatus(program: Command): void {
  program
    .command('compact')
    .description('re-sort tables that ingestion appended out of order, so queries over them stream without sorting')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .action(async (opts: { data: string }) => {
      const { tables } = await operate(opts, 'compact', {});
      process.stdout.write(tables.length ? `re-sorted ${tables.join(', ')}\n` : 'every table is in order\n');
    });

  program
    .command('status')
    .description('show what the store holds, per dataset and network, and the ingestion jobs of a running server')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--json', 'print JSON for scripts')
    .action(async (opts: { data: string; json?: boolean }) => {
      const datasets = await operate(opts, 'status', {});
      const verifications = await operate(opts, 'verifications', {});
      const exports = await operate(opts, 'exports', {});
      const server = await runningServer(opts.data);
      const jobs = server ? await server.jobs() : [];
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ datasets, verifications, exports, server: server ? { pid: server.info.pid, startedAt: server.info.startedAt, jobs } : null })}\n`);
        return;
      }
      const rows = datasets.map((d) => [
        d.dataset,
        d.network ?? d.token ?? '',
        d.rows.toLocaleString('en-US'),
        d.block_min === null ? '' : `${d.block_min}–${d.block_max}`,
        `${d.time_min ?? ''} – ${d.time_max ?? ''}`,
      ]);
      const head = ['dataset', 'network', 'rows', 'blocks', 'time'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (r: string[]) =>
        r
          .map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd();
      process.stdout.write(`${[line(head), ...rows.map(line)].join('\n')}\n`);
      if (datasets.length === 0) process.stdout.write('the store holds no data yet: run `chainq demo` or `chainq ingest …`\n');
      if (verifications.length) {
        process.stdout.write('\nlast verification (chainq verify) per dataset and network:\n');
        const vw = Math.max(...verifications.map((v) => v.dataset.length));
        for (const v of verifications) {
          const outcome =
            v.result === 'ok' ? 'ok' : `mismatch (${v.mismatches} block${v.mismatches === 1 ? '' : 's'}: ${v.mismatchBlocks.join(', ')}${v.mismatches > v.mismatchBlocks.length ? ', …' : ''})`;
          process.stdout.write(`  ${v.dataset.padEnd(vw)}  ${v.network}  ${v.at}  ${v.blocks.toLocaleString('en-US')} ${v.sampled ? 'sampled ' : ''}blocks against ${v.node}: ${outcome}\n`);
        }
      }
      process.stdout.write(`\nexports: ${exports.unfinished.length} unfinished; ${exports.files} file${exports.files === 1 ? '' : 's'} on disk, ${(exports.diskBytes / 1024 / 1024).toFixed(1)} MiB\n`);
      for (const e of exports.unfinished) process.stdout.write(`  ${e.id}  ${e.status}  ${e.endpoint}  ${e.partitionsDone}/${e.partitions} partitions\n`);
      if (server) {
        process.stdout.write(`\nserved live by pid ${server.info.pid} since ${server.info.startedAt}; ${jobs.length ? 'jobs:' : 'no ingestion jobs'}\n`);
        for (const j of jobs) {
          const err = j.lastError ? `; last error ${j.lastError.at}: ${j.lastError.message}` : '';
          process.stdout.write(`  ${j.id}  ${j.name ?? ''}  ${j.label}  ${j.state}${j.nextRetryAt ? ` (retry at ${j.nextRetryAt})` : ''}  attempts ${j.attempts}${err}\n`);
        }
      }
    });
}
