import type { Command } from 'commander';
import { compactDatasets, datasetStatus } from '../store/maintenance.ts';
import { DEFAULT_DATA_DIR, withStore } from './options.ts';

export function registerStatus(program: Command): void {
  program
    .command('compact')
    .description('re-sort tables that ingestion appended out of order, so queries over them stream without sorting')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .action(async (opts: { data: string }) => {
      await withStore(opts, async (store) => {
        const tables = await compactDatasets(store);
        process.stdout.write(tables.length ? `re-sorted ${tables.join(', ')}\n` : 'every table is in order\n');
      });
    });

  program
    .command('status')
    .description('show what the store holds, per dataset and network')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--json', 'print JSON for scripts')
    .action(async (opts: { data: string; json?: boolean }) => {
      await withStore(opts, async (store) => {
        const datasets = await datasetStatus(store);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ datasets })}\n`);
          return;
        }
        const rows = datasets.map((d) => [d.dataset, d.network ?? d.token ?? '', d.rows.toLocaleString('en-US'),
          d.block_min === null ? '' : `${d.block_min}–${d.block_max}`, `${d.time_min ?? ''} – ${d.time_max ?? ''}`]);
        const head = ['dataset', 'network', 'rows', 'blocks', 'time'];
        const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        const line = (r: string[]) => r.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
        process.stdout.write(`${[line(head), ...rows.map(line)].join('\n')}\n`);
        if (datasets.length === 0) process.stdout.write('the store holds no data yet: run `chainq demo` or `chainq ingest …`\n');
      });
    });
}
