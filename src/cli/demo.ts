import type { Command } from 'commander';
import { generateDemo } from '../demo/generate.ts';
import { clearDatasets } from '../store/maintenance.ts';
import { loadSeed } from '../reference/importReference.ts';
import type { Store } from '../store/createStore.ts';
import { DEFAULT_DATA_DIR, withStore, positiveNumber } from './options.ts';

/** Replaces the store's datasets with the synthetic demo dataset. */
export async function loadDemo(store: Store, opts: { scale?: number; days?: number } = {}): Promise<void> {
  await loadSeed(store);
  await clearDatasets(store);
  await generateDemo(store, opts);
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('replace the datasets in the store with the deterministic synthetic demo dataset')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--scale <n>', 'multiply every event rate', positiveNumber, 1)
    .option('--days <n>', 'length of the demo window in days, from 2025-12-01', positiveNumber, 2)
    .action(async (opts: { data: string; scale: number; days: number }) => {
      const t0 = Date.now();
      await withStore(opts, (store) => loadDemo(store, { scale: opts.scale, days: opts.days }));
      process.stdout.write(`demo dataset loaded into ${opts.data} in ${((Date.now() - t0) / 1000).toFixed(1)} s (scale ${opts.scale}, ${opts.days} days)\n`);
    });
}
