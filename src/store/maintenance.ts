/** Whole-store operations for operators: clearing datasets and describing what the store holds. */
import { catalog } from '../catalog/index.ts';
import type { Store } from './types.ts';

export const clearDatasets = (store: Store): Promise<void> => store.maintenance.clear();

export interface DatasetStatus {
  dataset: string;
  network: string | null;
  token?: string;
  rows: number;
  block_min: number | null;
  block_max: number | null;
  time_min: string | null;
  time_max: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString().replace('.000Z', 'Z') : null);

/** One entry per dataset and network (or token, for venues) that holds rows. */
export async function datasetStatus(store: Store): Promise<DatasetStatus[]> {
  const out: DatasetStatus[] = [];
  for (const e of catalog) {
    const cols = new Set(e.table.columns.map((c) => c.name));
    const byToken = e.family === 'exchange';
    const scope = byToken ? 'token' : 'network';
    if (!cols.has(scope)) continue;
    for (const r of await store.maintenance.tableStatus(e.table.name, scope, cols.has('block_number'))) {
      const chainNetwork = e.family === 'btc' ? null : r.scope;
      out.push({
        dataset: e.id,
        network: byToken ? null : chainNetwork,
        ...(byToken ? { token: r.scope } : {}),
        rows: r.rows,
        block_min: r.blockMin,
        block_max: r.blockMax,
        time_min: iso(r.timeMin),
        time_max: iso(r.timeMax),
      });
    }
  }
  return out;
}

/**
 * Rewrites every table holding rows appended out of order, sorted by its
 * catalog order, so that queries over it stream without sorting again.
 * Returns the tables rewritten.
 */
export const compactDatasets = (store: Store): Promise<string[]> => store.maintenance.compact();

/**
 * Runs `build`, which writes datasets through an embedded store's operations
 * (the demo's generators), for the store: on the store itself when it is one,
 * else on an in-memory embedded store whose datasets then replace the store's.
 */
export const buildDatasets = (store: Store, build: (local: Store) => Promise<void>): Promise<void> => store.maintenance.build(build);
