/** Options shared by `serve` and `keys`: which plans are in force and where the counters live. */
import path from 'node:path';
import type { MeterBackend } from '../metering/backend.ts';
import { createEmbeddedBackend } from '../metering/embeddedBackend.ts';
import { loadPlans, type Plans } from '../metering/plans.ts';
import { createRedisBackend } from '../metering/redisBackend.ts';
import type { Store } from '../store/types.ts';

export interface MeteringCliOptions {
  data: string;
  store?: string | undefined;
  plans?: string;
  redis?: string;
  redisPrefix?: string;
}

export function plansOf(opts: MeteringCliOptions): Plans {
  return loadPlans({ file: opts.plans, dataDir: path.resolve(opts.data) });
}

/** Redis when --redis is given, else the ledger in the store. */
export async function backendOf(opts: MeteringCliOptions, store: Store): Promise<MeterBackend> {
  if (opts.redis) return createRedisBackend({ url: opts.redis, ...(opts.redisPrefix ? { prefix: opts.redisPrefix } : {}) });
  return createEmbeddedBackend(store);
}

export const PLANS_HELP = 'plans file (JSON); default <data>/plans.json when it exists, else the shipped plans';
export const REDIS_HELP = 'keep rate-limit windows and quota counters in Redis (redis://[:password@]host:port[/db]), shared by every server given the same URL; opens a DuckDB store read-only';
