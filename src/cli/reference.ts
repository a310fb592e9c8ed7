import fs from 'node:fs';
import type { Command } from 'commander';
import { operate } from './operate.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP } from './options.ts';

export function registerReference(program: Command): void {
  for (const [name, columns] of [
    ['tokens', 'symbol,name,aliases,network,address,decimals (aliases |-separated)'],
    ['labels', 'address,label,category,network (empty network = every EVM network)'],
  ] as const) {
    program
      .command(name)
      .description(`manage the ${name} reference data`)
      .command('import <file>')
      .description(`import a CSV with the header ${columns}; rows replace rows with the same key`)
      .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
      .option('--store <target>', STORE_HELP)
      .action(async (file: string, opts: { data: string }) => {
        // The file is read here and sent as text: a running server may not be able to read the operator's files.
        const csv = fs.readFileSync(file, 'utf8');
        const { imported } = await operate(opts, `${name}.import`, { csv });
        process.stdout.write(`imported ${imported} ${name}\n`);
      });
  }
}
