import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { createKey, listKeys, matchKeys, revokeKey, setKeyPlan } from '../metering/keys.ts';
import { UNLIMITED } from '../metering/meter.ts';
import { monthPeriod, PERIOD_PATTERN } from '../metering/period.ts';
import { describePlan, type Plans } from '../metering/plans.ts';
import { backendOf, plansOf, PLANS_HELP, REDIS_HELP, type MeteringCliOptions } from './metering.ts';
import { DEFAULT_DATA_DIR, openStore, withStore } from './options.ts';

/** Read-only opens need an existing database file; a new data directory is opened normally (and is empty). */
const storeExists = (data: string) => fs.existsSync(path.join(path.resolve(data), 'chainq.duckdb'));

function requirePlan(plans: Plans, plan: string): void {
  if (!plans.has(plan)) throw new Error(`unknown plan '${plan}'; configured plans: ${[...plans.values()].map(describePlan).join('; ')}`);
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys, their plans and their usage');
  keys
    .command('create')
    .description('create an API key; the key is printed once, alone on the last line')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--plan <name>', 'plan of the key', 'free')
    .option('--plans <file>', PLANS_HELP)
    .option('--name <text>', 'a note to recognise the key by')
    .action(async (opts: MeteringCliOptions & { plan: string; name?: string }) => {
      requirePlan(plansOf(opts), opts.plan);
      await withStore(opts, async (store) => {
        const { key, record } = await createKey(store, { plan: opts.plan, name: opts.name });
        process.stdout.write(`created key ${record.id} (plan ${record.plan}); store it now, it is not shown again:\n${key}\n`);
      });
    });
  keys
    .command('list')
    .description('list keys (never the keys themselves)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--json', 'print JSON')
    .action(async (opts: { data: string; json?: boolean }) => {
      await withStore({ ...opts, readOnly: storeExists(opts.data) }, async (store) => {
        const list = await listKeys(store);
        if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
        else for (const k of list) process.stdout.write(`${k.id}  ${k.prefix}…  ${k.plan}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.name ?? ''}\n`);
      });
    });
  keys
    .command('revoke <id-or-prefix>')
    .description('revoke a key by id or by its visible prefix (cq_xxxx)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .action(async (idOrPrefix: string, opts: { data: string }) => {
      await withStore(opts, async (store) => {
        const n = await revokeKey(store, idOrPrefix);
        if (n !== 1) {
          process.stderr.write(n === 0 ? `no active key matches ${idOrPrefix}\n` : `${idOrPrefix} matches ${n} keys; use the id\n`);
          process.exitCode = 1;
        } else process.stdout.write(`revoked ${idOrPrefix}\n`);
      });
    });
  keys
    .command('set-plan <id-or-prefix> <plan>')
    .description('move a key to another plan; a running server applies it within 5 s (its key cache)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--plans <file>', PLANS_HELP)
    .action(async (idOrPrefix: string, plan: string, opts: MeteringCliOptions) => {
      requirePlan(plansOf(opts), plan);
      await withStore(opts, async (store) => {
        const n = await setKeyPlan(store, idOrPrefix, plan);
        if (n !== 1) {
          process.stderr.write(n === 0 ? `no key matches ${idOrPrefix}\n` : `${idOrPrefix} matches ${n} keys; use the id\n`);
          process.exitCode = 1;
        } else process.stdout.write(`${idOrPrefix} is now on plan ${plan}\n`);
      });
    });
  keys
    .command('usage [id-or-prefix]')
    .description('blocks charged and requests charged, per key and month (default: this month, every key)')
    .option('--data <dir>', 'data directory', DEFAULT_DATA_DIR)
    .option('--month <YYYY-MM>', 'the month to show (UTC)')
    .option('--all-months', 'every month on record')
    .option('--plans <file>', PLANS_HELP)
    .option('--redis <url>', `read the counters from Redis: the same URL the servers use. ${REDIS_HELP}`)
    .option('--redis-prefix <prefix>', 'prefix of every Redis key', 'chainq')
    .option('--json', 'print JSON')
    .action(async (idOrPrefix: string | undefined, opts: MeteringCliOptions & { month?: string; allMonths?: boolean; json?: boolean }) => {
      if (opts.month !== undefined && !PERIOD_PATTERN.test(opts.month)) throw new Error(`--month must look like 2025-12, got '${opts.month}'`);
      const plans = plansOf(opts);
      const period = opts.allMonths ? undefined : opts.month ?? monthPeriod(Date.now());
      // Only reads: a read-only open can share the store with servers that run with --redis.
      const store = await openStore({ ...opts, readOnly: storeExists(opts.data) });
      const backend = await backendOf(opts, store);
      try {
        const matched = await matchKeys(store, idOrPrefix);
        if (idOrPrefix !== undefined && matched.length === 0) throw new Error(`no key matches ${idOrPrefix}`);
        const rows: Record<string, string | number | null>[] = [];
        for (const k of matched) {
          const usage = await backend.usage({ keyId: k.id, period });
          const budget = plans.get(k.plan)?.monthlyBlocks;
          const months = usage.length ? usage : period ? [{ keyId: k.id, period, requests: 0, blocks: 0 }] : [];
          for (const u of months) {
            const remaining = budget === undefined ? null : budget === null ? UNLIMITED : Math.max(0, budget - u.blocks);
            rows.push({ key: k.prefix, id: k.id, plan: k.plan, month: u.period, requests: u.requests, blocks: u.blocks, budget: budget === undefined ? null : budget, remaining });
          }
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
        else {
          process.stdout.write('key        month    plan        requests  blocks used  budget  remaining\n');
          for (const r of rows) {
            const budget = r.budget === null ? (plans.has(String(r.plan)) ? 'none' : 'unknown plan') : Number(r.budget).toLocaleString('en-US');
            const remaining = r.remaining === null ? '-' : r.remaining === UNLIMITED ? 'no limit' : Number(r.remaining).toLocaleString('en-US');
            process.stdout.write(`${r.key}…  ${r.month}  ${String(r.plan).padEnd(10)}  ${String(r.requests).padStart(8)}  ${Number(r.blocks).toLocaleString('en-US').padStart(11)}  ${budget}  ${remaining}\n`);
          }
        }
      } finally {
        await backend.close();
        await store.close();
      }
    });
}
