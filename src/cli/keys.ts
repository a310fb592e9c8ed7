import type { Command } from 'commander';
import { UNLIMITED } from '../metering/meter.ts';
import { PERIOD_PATTERN } from '../metering/period.ts';
import { PLANS_HELP, REDIS_HELP, type MeteringCliOptions } from './metering.ts';
import { operate } from './operate.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP } from './options.ts';

/**
 * `chainq keys …`. With a server running on the data directory, each command
 * goes to it (its plans, its metering backend) and takes effect on API
 * requests within 5 s (the server's key cache); otherwise it opens the store.
 */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys, their plans and their usage');
  keys
    .command('create')
    .description('create an API key; the key is printed once, alone on the last line')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--plan <name>', 'plan of the key', 'free')
    .option('--plans <file>', PLANS_HELP)
    .option('--name <text>', 'a note to recognise the key by')
    .action(async (opts: MeteringCliOptions & { plan: string; name?: string }) => {
      const { key, record } = await operate(opts, 'keys.create', { plan: opts.plan, ...(opts.name ? { name: opts.name } : {}) });
      process.stdout.write(`created key ${record.id} (plan ${record.plan}); store it now, it is not shown again:\n${key}\n`);
    });
  keys
    .command('list')
    .description('list keys (never the keys themselves)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--json', 'print JSON')
    .action(async (opts: { data: string; json?: boolean }) => {
      const list = await operate(opts, 'keys.list', {});
      if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
      else for (const k of list) process.stdout.write(`${k.id}  ${k.prefix}…  ${k.plan}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name ?? ''}\n`);
    });
  keys
    .command('revoke <id-or-prefix>')
    .description('revoke a key by id or by its visible prefix (cq_xxxx)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .action(async (idOrPrefix: string, opts: { data: string }) => {
      await operate(opts, 'keys.revoke', { idOrPrefix });
      process.stdout.write(`revoked ${idOrPrefix}\n`);
    });
  keys
    .command('set-plan <id-or-prefix> <plan>')
    .description('move a key to another plan; a running server applies it within 5 s (its key cache)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--plans <file>', PLANS_HELP)
    .action(async (idOrPrefix: string, plan: string, opts: MeteringCliOptions) => {
      await operate(opts, 'keys.set-plan', { idOrPrefix, plan });
      process.stdout.write(`${idOrPrefix} is now on plan ${plan}\n`);
    });
  keys
    .command('usage [id-or-prefix]')
    .description('blocks charged and requests charged, per key and month (default: this month, every key)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--month <YYYY-MM>', 'the month to show (UTC)')
    .option('--all-months', 'every month on record')
    .option('--plans <file>', PLANS_HELP)
    .option('--redis <url>', `read the counters from Redis: the same URL the servers use. ${REDIS_HELP}`)
    .option('--redis-prefix <prefix>', 'prefix of every Redis key', 'chainq')
    .option('--json', 'print JSON')
    .action(async (idOrPrefix: string | undefined, opts: MeteringCliOptions & { month?: string; allMonths?: boolean; json?: boolean }) => {
      if (opts.month !== undefined && !PERIOD_PATTERN.test(opts.month)) throw new Error(`--month must look like 2025-12, got '${opts.month}'`);
      const rows = await operate(opts, 'keys.usage', {
        ...(idOrPrefix !== undefined ? { idOrPrefix } : {}),
        ...(opts.month ? { month: opts.month } : {}),
        ...(opts.allMonths ? { allMonths: true } : {}),
      });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows.map(({ planKnown: _, ...r }) => r))}\n`);
        return;
      }
      process.stdout.write('key        month    plan        requests  blocks used  budget  remaining\n');
      for (const r of rows) {
        const budget = !r.planKnown ? 'unknown plan' : r.budget === null ? 'none' : r.budget.toLocaleString('en-US');
        const remaining = r.remaining === null ? '-' : r.remaining === UNLIMITED ? 'no limit' : r.remaining.toLocaleString('en-US');
        process.stdout.write(`${r.key}…  ${r.month}  ${r.plan.padEnd(10)}  ${String(r.requests).padStart(8)}  ${r.blocks.toLocaleString('en-US').padStart(11)}  ${budget}  ${remaining}\n`);
      }
    });
}
