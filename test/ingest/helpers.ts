/** Shared pieces of the ingestion tests: stores, table dumps and coverage reads. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

export async function memoryStore(): Promise<Store> {
  const store = await createStore({ dataDir: null, threads: 2 });
  await loadSeed(store);
  return store;
}

/** Every row of a table in a stable order, as JSON-safe values, to compare two stores. */
export async function dump(store: Store, table: string): Promise<unknown[]> {
  const rows = await engineSql(store).all(`SELECT * FROM ${table} ORDER BY ALL`);
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v instanceof Date ? v.toISOString() : v])));
}

export async function coverage(store: Store, dataset: string, scope: string): Promise<[number, number][]> {
  return (await store.coverage.intervals(dataset, scope)).map((i) => [i.lo, i.hi]);
}

export async function count(store: Store, table: string, where = 'true'): Promise<number> {
  const [r] = await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`);
  return Number(r?.n ?? 0);
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `chainq-test-${prefix}-`));
}

/** Thrown by a test hook to stop a run right after a checkpoint, like a crash would. */
export class SimulatedCrash extends Error {
  constructor(after: number) {
    super(`simulated crash after ${after} committed units`);
  }
}

/** An afterCommit hook that crashes after `n` commits. */
export function crashAfter(n: number): { afterCommit: () => void } {
  let commits = 0;
  return {
    afterCommit() {
      commits++;
      if (commits >= n) throw new SimulatedCrash(commits);
    },
  };
}
