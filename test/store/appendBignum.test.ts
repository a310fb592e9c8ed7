/**
 * Exact wide integers through the appender: ingestion writes every uint256 /
 * int256 value (a custom dataset's, a transfer's amount) with it, on DuckDB
 * and into the scratch store that ClickHouse ingestion publishes from.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/createStore.ts';

const MAX_UINT256 = 2n ** 256n - 1n;
const MIN_INT256 = -(2n ** 255n);

describe('appending to a BIGNUM column', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createStore({ dataDir: null, threads: 1 });
    await store.run('CREATE TABLE wide (i INTEGER, v BIGNUM)');
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps zero, given as a bigint or a number, readable and equal to zero', async () => {
    await store.transaction((tx) =>
      tx.append('wide', [
        [1, 0n],
        [2, 0],
        [3, -0n],
      ]),
    );
    const rows = await store.all<{ i: number; v: string; zero: boolean }>('SELECT i, CAST(v AS VARCHAR) AS v, v = 0::BIGNUM AS zero FROM wide ORDER BY i');
    expect(rows).toEqual([
      { i: 1, v: '0', zero: true },
      { i: 2, v: '0', zero: true },
      { i: 3, v: '0', zero: true },
    ]);
  });

  it('keeps every value exact from the most negative int256 to the largest uint256', async () => {
    const values = [MIN_INT256, -(2n ** 64n), -256n, -255n, -1n, 0n, 1n, 255n, 256n, 2n ** 64n, 2n ** 255n - 1n, MAX_UINT256];
    await store.transaction((tx) =>
      tx.append(
        'wide',
        values.map((v, i) => [i, v]),
      ),
    );
    const rows = await store.all<{ v: string }>('SELECT CAST(v AS VARCHAR) AS v FROM wide ORDER BY i');
    expect(rows.map((r) => r.v)).toEqual(values.map(String));
    // Ordered as numbers, not as text or blobs.
    const sorted = await store.all<{ i: number }>('SELECT i FROM wide ORDER BY v');
    expect(sorted.map((r) => r.i)).toEqual(values.map((_, i) => i));
  });
});
