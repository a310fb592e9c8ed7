import type { Command } from 'commander';
import { createKey, listKeys, revokeKey } from '../metering/keys.ts';
import { DEFAULT_DATA_DIR, openStore } from './options.ts';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key; the key is printed once, alone on the last line')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--plan <name>', 'plan of the key', 'free')
    .option('--name <text>', 'a note to recognise the key by')
    .action(async (opts: { data: string; plan: string; name?: string }) => {
      const store = await openStore(opts);
      try {
        const { key, record } = await createKey(store, { plan: opts.plan, name: opts.name });
        process.stdout.write(`created key ${record.id} (plan ${record.plan}); store it now, it is not shown again:\n${key}\n`);
      } finally {
        await store.close();
      }
    });
  keys
    .command('list')
    .description('list keys (never the keys themselves)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--json', 'print JSON')
    .action(async (opts: { data: string; json?: boolean }) => {
      const store = await openStore(opts);
      try {
        const list = await listKeys(store);
        if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
        else for (const k of list) process.stdout.write(`${k.id}  ${k.prefix}…  ${k.plan}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name ?? ''}\n`);
      } finally {
        await store.close();
      }
    });
  keys
    .command('revoke <id-or-prefix>')
    .description('revoke a key by id or by its visible prefix (cq_xxxx)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .action(async (idOrPrefix: string, opts: { data: string }) => {
      const store = await openStore(opts);
      try {
        const n = await revokeKey(store, idOrPrefix);
        if (n !== 1) {
          process.stderr.write(n === 0 ? `no active key matches ${idOrPrefix}\n` : `${idOrPrefix} matches ${n} keys; use the id\n`);
          process.exitCode = 1;
        } else process.stdout.write(`revoked ${idOrPrefix}\n`);
      } finally {
        await store.close();
      }
    });
}
