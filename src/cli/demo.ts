import type { Command } from 'commander';
import { operate } from './operate.ts';
import { describeTarget } from '../store/target.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP, positiveNumber, storeTargetOf } from './options.ts';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('replace the datasets in the store with the deterministic synthetic demo dataset')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--scale <n>', 'multiply every event rate', positiveNumber, 1)
    .option('--days <n>', 'length of the demo window in days, from 2025-12-01', positiveNumber, 2)
    .action(async (opts: { data: string; store?: string; scale: number; days: number }) => {
      const { seconds } = await operate(opts, 'demo', { scale: opts.scale, days: opts.days });
      process.stdout.write(`demo dataset loaded into ${describeTarget(storeTargetOf(opts))} in ${seconds.toFixed(1)} s (scale ${opts.scale}, ${opts.days} days)\n`);
    });
}
