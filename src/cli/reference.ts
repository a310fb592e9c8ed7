import type { Command } from 'commander';
import { importLabels, importTokens } from '../reference/importReference.ts';
import { DEFAULT_DATA_DIR, withStore } from './options.ts';

export function registerReference(program: Command): void {
  for (const [name, importer, columns] of [
    ['tokens', importTokens, 'symbol,name,aliases,network,address,decimals (aliases |-separated)'],
    ['labels', importLabels, 'address,label,category,network (empty network = every EVM network)'],
  ] as const) {
    program
      .command(name)
      .description(`manage the ${name} reference data`)
      .command('import <file>')
      .description(`import a CSV with the header ${columns}; rows replace rows with the same key`)
      .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
      .action(async (file: string, opts: { data: string }) => {
        await withStore(opts, async (store) => {
          const n = await importer(store, file);
          process.stdout.write(`imported ${n} ${name}\n`);
        });
      });
  }
}
