/** addCoverageMany records several datasets as addCoverage would, one by one. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoverage, addCoverageMany } from '../../src/store/duckdb/coverageWrites.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

describe('addCoverageMany', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore({ dataDir: null, threads: 1 });
  });
  afterAll(async () => {
    await store.close();
  });

  const state = async () => ({
    coverage: await engineSql(store).all(`SELECT dataset, scope, lo, hi FROM coverage ORDER BY ALL`),
    order: await engineSql(store).all(`SELECT * FROM dataset_order ORDER BY ALL`),
  });

  it('merges touching intervals and flags a range behind the tip as out of order, exactly like addCoverage', async () => {
    const steps: [number, number][] = [
      [10, 19],
      [20, 29],
      [40, 49],
      [0, 5],
      [30, 39],
    ];
    const datasets = ['a', 'b', "c'quote"];
    await engineSql(store).transaction(async (tx) => {
      for (const [lo, hi] of steps) for (const d of datasets) await addCoverage(tx, `one:${d}`, 'ETH', lo, hi);
    });
    await engineSql(store).transaction(async (tx) => {
      for (const [lo, hi] of steps)
        await addCoverageMany(
          tx,
          datasets.map((d) => `many:${d}`),
          'ETH',
          lo,
          hi,
        );
    });
    const s = await state();
    type R = { dataset: string; lo?: bigint; hi?: bigint };
    const strip = (rows: unknown[], prefix: string): R[] => (rows as R[]).filter((r) => r.dataset.startsWith(prefix)).map((r) => ({ ...r, dataset: r.dataset.slice(prefix.length) }));
    expect(strip(s.coverage, 'many:')).toEqual(strip(s.coverage, 'one:'));
    expect(strip(s.order, 'many:')).toEqual(strip(s.order, 'one:'));
    expect(
      strip(s.coverage, 'many:')
        .filter((r) => r.dataset === 'a')
        .map((r) => [Number(r.lo), Number(r.hi)]),
    ).toEqual([
      [0, 5],
      [10, 49],
    ]);
    expect(strip(s.order, 'many:').length).toBe(3);
  });
});
