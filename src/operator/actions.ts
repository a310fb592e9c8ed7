/**
 * What an operator can do to a store besides ingesting: keys, status,
 * reference imports, plans. Each action takes and returns plain JSON, so the
 * CLI runs it in its own process when no server holds the store, or sends it
 * to the running server over the operator channel, and prints the same.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MeterBackend } from '../metering/backend.ts';
import { createKey, listKeys, matchKeys, revokeKey, setKeyPlan, type ApiKeyRecord } from '../metering/keys.ts';
import { UNLIMITED } from '../metering/meter.ts';
import { monthPeriod } from '../metering/period.ts';
import { describePlan, type Plans } from '../metering/plans.ts';
import { importLabels, importTokens, loadSeed } from '../reference/importReference.ts';
import type { Store } from '../store/types.ts';
import { buildDatasets, clearDatasets, compactDatasets, datasetStatus, type DatasetStatus } from '../store/maintenance.ts';
import { verificationRecords } from '../store/verification.ts';
import { InvalidInputError } from '../errors/chainqError.ts';

export interface OperatorContext {
  readonly store: Store;
  /** The plans in force (the server's, or the CLI's --plans). */
  plans(): Plans;
  /** Rereads the plans file and puts it in force; absent when no server runs. */
  readonly reloadPlans?: () => Plans;
  meterBackend(): Promise<MeterBackend>;
}

/** An operator mistake (unknown plan, no such key): the CLI prints the message and exits 1. */
export class OperatorError extends InvalidInputError {}

export interface KeyView {
  readonly id: string;
  readonly prefix: string;
  readonly plan: string;
  readonly name: string | null;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** The latest `chainq verify` of one dataset and network. */
export interface UnfinishedExport {
  readonly id: string;
  readonly status: string;
  readonly endpoint: string;
  readonly partitions: number;
  readonly partitionsDone: number;
}

export interface ExportsStatus {
  readonly unfinished: readonly UnfinishedExport[];
  /** Export files on local disk, and their bytes. */
  readonly files: number;
  readonly diskBytes: number;
}

export interface VerificationView {
  readonly dataset: string;
  readonly network: string;
  readonly at: string;
  readonly node: string;
  readonly result: 'ok' | 'mismatch';
  readonly sampled: boolean;
  readonly blocks: number;
  readonly mismatches: number;
  /** The first blocks that differed (at most 20). */
  readonly mismatchBlocks: readonly number[];
}

export interface UsageView {
  readonly key: string;
  readonly id: string;
  readonly plan: string;
  readonly month: string;
  readonly requests: number;
  readonly blocks: number;
  /** null: no monthly budget (or an unknown plan, see `planKnown`). */
  readonly budget: number | null;
  readonly remaining: number | null;
  readonly planKnown: boolean;
}

const keyView = (k: ApiKeyRecord): KeyView => ({
  id: k.id,
  prefix: k.prefix,
  plan: k.plan,
  name: k.name,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
});

function requirePlan(plans: Plans, plan: string): void {
  if (!plans.has(plan)) throw new OperatorError(`unknown plan '${plan}'; configured plans: ${[...plans.values()].map(describePlan).join('; ')}`);
}

/** One key by id or visible prefix, or an error saying why not. */
function matched(n: number, idOrPrefix: string, active: boolean): void {
  if (n === 0) throw new OperatorError(`no ${active ? 'active ' : ''}key matches ${idOrPrefix}`);
  if (n > 1) throw new OperatorError(`${idOrPrefix} matches ${n} keys; use the id`);
}

/** Reference CSVs travel as text (the server may not read the operator's files); DuckDB reads them from a private temporary file. */
async function importCsv(store: Store, csv: string, importer: (store: Store, file: string) => Promise<number>): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-import-'));
  try {
    const file = path.join(dir, 'import.csv');
    fs.writeFileSync(file, csv, { mode: 0o600 });
    return await importer(store, file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Replaces the store's datasets with the synthetic demo dataset. */
export async function loadDemo(store: Store, opts: { scale?: number; days?: number } = {}): Promise<void> {
  // The demo is generated inside DuckDB (its range() and random()); a ClickHouse store gets a copy, as `chainq copy` makes.
  await buildDatasets(store, async (duck) => {
    await loadSeed(duck);
    await clearDatasets(duck);
    // The generator is loaded only when a demo is made: a server on an existing store never runs it.
    const { generateDemo } = await import('../demo/generate.ts');
    await generateDemo(duck, opts);
  });
}

/** The input of actions that take none. */
export type NoInput = Record<string, never>;

export const OPERATOR_ACTIONS = {
  async 'keys.create'(ctx: OperatorContext, input: { plan: string; name?: string }) {
    requirePlan(ctx.plans(), input.plan);
    const { key, record } = await createKey(ctx.store, { plan: input.plan, name: input.name });
    return { key, record: keyView(record) };
  },
  async 'keys.list'(ctx: OperatorContext, _input: NoInput) {
    return (await listKeys(ctx.store)).map(keyView);
  },
  async 'keys.revoke'(ctx: OperatorContext, input: { idOrPrefix: string }) {
    matched(await revokeKey(ctx.store, input.idOrPrefix), input.idOrPrefix, true);
    return { revoked: input.idOrPrefix };
  },
  async 'keys.set-plan'(ctx: OperatorContext, input: { idOrPrefix: string; plan: string }) {
    requirePlan(ctx.plans(), input.plan);
    matched(await setKeyPlan(ctx.store, input.idOrPrefix, input.plan), input.idOrPrefix, false);
    return { key: input.idOrPrefix, plan: input.plan };
  },
  async 'keys.usage'(ctx: OperatorContext, input: { idOrPrefix?: string; month?: string; allMonths?: boolean }): Promise<UsageView[]> {
    const plans = ctx.plans();
    const period = input.allMonths ? undefined : (input.month ?? monthPeriod(Date.now()));
    const keys = await matchKeys(ctx.store, input.idOrPrefix);
    if (input.idOrPrefix !== undefined && keys.length === 0) throw new OperatorError(`no key matches ${input.idOrPrefix}`);
    const backend = await ctx.meterBackend();
    const rows: UsageView[] = [];
    for (const k of keys) {
      const usage = await backend.usage({ keyId: k.id, period });
      const plan = plans.get(k.plan);
      const budget = plan?.monthlyBlocks ?? null;
      const months = usage.length ? usage : period ? [{ keyId: k.id, period, requests: 0, blocks: 0 }] : [];
      for (const u of months) {
        const remaining = !plan ? null : budget === null ? UNLIMITED : Math.max(0, budget - u.blocks);
        rows.push({ key: k.prefix, id: k.id, plan: k.plan, month: u.period, requests: u.requests, blocks: u.blocks, budget, remaining, planKnown: Boolean(plan) });
      }
    }
    return rows;
  },
  async status(ctx: OperatorContext, _input: NoInput): Promise<DatasetStatus[]> {
    return datasetStatus(ctx.store);
  },
  /** Export jobs not finished yet, and the bytes of export files kept on local disk. */
  async exports(ctx: OperatorContext, _input: NoInput): Promise<ExportsStatus> {
    const all = await ctx.store.exports.all();
    const unfinished: UnfinishedExport[] = [];
    let files = 0;
    let diskBytes = 0;
    for (const job of all) {
      const open = job.status === 'queued' || job.status === 'running';
      if (!open && job.filesRemoved) continue;
      const parts = await ctx.store.exports.parts(job.id);
      if (open) unfinished.push({ id: job.id, status: job.status, endpoint: job.endpoint, partitions: job.partitions, partitionsDone: parts.length });
      if (job.filesRemoved) continue;
      for (const p of parts) {
        if (p.url !== null) continue;
        files++;
        diskBytes += p.bytes;
      }
    }
    return { unfinished, files, diskBytes };
  },
  async verifications(ctx: OperatorContext, _input: NoInput): Promise<VerificationView[]> {
    const latest = new Map<string, VerificationView>();
    for (const r of await verificationRecords(ctx.store, null)) {
      latest.set(`${r.dataset}\u0000${r.network}`, {
        dataset: r.dataset,
        network: r.network,
        at: r.verifiedAt.toISOString(),
        node: r.node,
        result: r.result,
        sampled: r.sampled,
        blocks: r.blocks,
        mismatches: r.mismatchBlocks.length,
        mismatchBlocks: r.mismatchBlocks.slice(0, 20),
      });
    }
    return [...latest.values()].sort((a, b) => a.dataset.localeCompare(b.dataset) || a.network.localeCompare(b.network));
  },
  async compact(ctx: OperatorContext, _input: NoInput) {
    return { tables: await compactDatasets(ctx.store) };
  },
  async 'tokens.import'(ctx: OperatorContext, input: { csv: string }) {
    return { imported: await importCsv(ctx.store, input.csv, importTokens) };
  },
  async 'labels.import'(ctx: OperatorContext, input: { csv: string }) {
    return { imported: await importCsv(ctx.store, input.csv, importLabels) };
  },
  async demo(ctx: OperatorContext, input: { scale?: number; days?: number }) {
    const t0 = Date.now();
    await loadDemo(ctx.store, input);
    return { seconds: (Date.now() - t0) / 1000 };
  },
  async 'plans.reload'(ctx: OperatorContext, _input: NoInput) {
    if (!ctx.reloadPlans) throw new OperatorError('no chainq server is running on this data directory; plans are read when the server starts');
    return { plans: [...ctx.reloadPlans().values()].map(describePlan) };
  },
} as const;

export type OperatorActions = typeof OPERATOR_ACTIONS;
export type ActionName = keyof OperatorActions;
export type ActionInput<N extends ActionName> = Parameters<OperatorActions[N]>[1];
export type ActionOutput<N extends ActionName> = Awaited<ReturnType<OperatorActions[N]>>;

export const isActionName = (name: string): name is ActionName => Object.hasOwn(OPERATOR_ACTIONS, name);

/** Runs an action; the result is JSON-shaped whichever side runs it. */
export async function runAction<N extends ActionName>(ctx: OperatorContext, name: N, input: ActionInput<N>): Promise<ActionOutput<N>> {
  const fn = OPERATOR_ACTIONS[name] as (ctx: OperatorContext, input: ActionInput<N>) => Promise<ActionOutput<N>>;
  return JSON.parse(JSON.stringify(await fn(ctx, input))) as ActionOutput<N>;
}
