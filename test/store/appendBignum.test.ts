/**
 * Exact wide integers through the appender: ingestion writes every uint256 /
 * int256 value (a custom dataset's, a transfer's amount) with it, on DuckDB
 * and into the scratch store that ClickHouse ingestion publishes from.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

const MAX_UINT256 = 2n ** 256n - 1n;
const MIN_INT256 = -(2n ** 255n);

describe('appending to a BIGNUM column', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createStore({ dataDir: null, threads: 1 });
    await engineSql(store).run('CREATE TABLE wide (i INTEGER, v BIGNUM)');
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps zero, given as a bigint or a number, readable and equal to zero', async () => {
    await engineSql(store).transaction((tx) =>
      tx.append('wide', [
        [1, 0n],
        [2, 0],
        [3, -0n],
      ]),
    );
    const rows = await engineSql(store).all<{ i: number; v: string; zero: boolean }>('SELECT i, CAST(v AS VARCHAR) AS v, v = 0::BIGNUM AS zero FROM wide ORDER BY i');
    expect(rows).toEqual([
      { i: 1, v: '0', zero: true },
      { i: 2, v: '0', zero: true },
      { i: 3, v: '0', zero: true },
    ]);
  });

  it('keeps every value exact from the most negative int256 to the largest uint256', async () => {
    const values = [MIN_INT256, -(2n ** 64n), -256n, -255n, -1n, 0n, 1n, 255n, 256n, 2n ** 64n, 2n ** 255n - 1n, MAX_UINT256];
    await engineSql(store).transaction((tx) =>
      tx.append(
        'wide',
        values.map((v, i) => [i, v]),
      ),
    );
    const rows = await engineSql(store).all<{ v: string }>('SELECT CAST(v AS VARCHAR) AS v FROM wide ORDER BY i');
    expect(rows.map((r) => r.v)).toEqual(values.map(String));
    // Ordered as numbers, not as text or blobs.
    const sorted = await engineSql(store).all<{ i: number }>('SELECT i FROM wide ORDER BY v');
    expect(sorted.map((r) => r.i)).toEqual(values.map((_, i) => i));
  });
});

describe('a store holding zeros an older version wrote', () => {
  it('is repaired when opened for writing: every such zero reads as 0, other values untouched, and the repair is recorded', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-bignum-'));
    try {
      // The state older versions left: the client's own BIGNUM encoding of zero, as their appender wrote it.
      const old = await DuckDBInstance.create(path.join(dir, 'chainq.duckdb'));
      const conn = await old.connect();
      await conn.run('CREATE TABLE "evm_custom_vault__deposited" (i INTEGER, "amount" BIGNUM, "change" BIGNUM)');
      const a = await conn.createAppender('evm_custom_vault__deposited');
      const rows: [number, bigint, bigint][] = [
        [1, 0n, 5n],
        [2, MAX_UINT256, 0n],
        [3, -1n, 1n],
        [4, 0n, MIN_INT256],
      ];
      for (const [i, amount, change] of rows) {
        a.appendInteger(i);
        a.appendBigNum(amount);
        a.appendBigNum(change);
        a.endRow();
      }
      a.closeSync();
      await expect(conn.runAndReadAll('SELECT CAST(amount AS VARCHAR) FROM evm_custom_vault__deposited')).rejects.toThrow(/Invalid blob size/);
      conn.closeSync();
      old.closeSync();

      const store = await createStore({ dataDir: dir, threads: 1 });
      try {
        const read = await engineSql(store).all<{ amount: string; change: string }>(
          'SELECT CAST(amount AS VARCHAR) AS amount, CAST(change AS VARCHAR) AS change FROM evm_custom_vault__deposited ORDER BY i',
        );
        expect(read).toEqual(rows.map(([, amount, change]) => ({ amount: String(amount), change: String(change) })));
        expect(await engineSql(store).all('SELECT i FROM evm_custom_vault__deposited WHERE amount = 0::BIGNUM ORDER BY i')).toEqual([{ i: 1 }, { i: 4 }]);
      } finally {
        await store.close();
      }
      const again = await createStore({ dataDir: dir, threads: 1 });
      try {
        expect((await engineSql(again).all<{ repair: string }>('SELECT repair FROM store_repairs')).map((r) => r.repair)).toEqual(['bignum_zero']);
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
