import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coveredIntervals } from './coverage.ts';
import { addCoverage } from './duckdb/coverageWrites.ts';
import { createStore } from './openStore.ts';
import type { Store } from './types.ts';
import { poolsBetween, tokensBySymbol } from './registry.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

let store: Store;
beforeEach(async () => {
  store = await createStore({ dataDir: null, threads: 2 });
});
afterEach(async () => {
  await store.close();
});

const addToken = (symbol: string, address: string) => engineSql(store).transaction((tx) => tx.run(`INSERT INTO tokens VALUES ($symbol, $symbol, [], 'ETH', $address, 18)`, { symbol, address }));
const addPool = (address: string) => engineSql(store).transaction((tx) => tx.run(`INSERT INTO pools VALUES ('ETH', $address, 500, '0xa', 'AAA', 18, '0xb', 'BBB', 6, 1)`, { address }));

describe('cached lookups', () => {
  it('a token lookup sees a token committed after the same lookup was cached', async () => {
    await addToken('AAA', '0x01');
    expect((await tokensBySymbol(store, 'ETH', 'AAA')).map((t) => t.address)).toEqual(['0x01']);
    // Twice: the second answer comes from the cache.
    expect((await tokensBySymbol(store, 'ETH', 'AAA')).map((t) => t.address)).toEqual(['0x01']);
    await addToken('AAA', '0x02');
    expect((await tokensBySymbol(store, 'ETH', 'AAA')).map((t) => t.address).sort()).toEqual(['0x01', '0x02']);
  });

  it('a pool lookup sees a pool committed after it was cached', async () => {
    await addPool('0xp1');
    expect((await poolsBetween(store, 'ETH', ['AAA'], ['BBB'])).map((p) => p.pool_address)).toEqual(['0xp1']);
    await addPool('0xp2');
    expect((await poolsBetween(store, 'ETH', ['AAA'], ['BBB'])).map((p) => p.pool_address).sort()).toEqual(['0xp1', '0xp2']);
  });

  it('a coverage lookup sees a batch committed after it was cached, also through a new snapshot', async () => {
    await engineSql(store).transaction((tx) => addCoverage(tx, 'evm/erc20/transfer', 'ETH', 1, 10));
    const before = await store.snapshot();
    expect(await coveredIntervals(before, 'evm/erc20/transfer', 'ETH')).toEqual([{ lo: 1, hi: 10 }]);
    await engineSql(store).transaction((tx) => addCoverage(tx, 'evm/erc20/transfer', 'ETH', 11, 20));
    // The snapshot opened before the commit keeps its view; the store and a new snapshot see the batch.
    expect(await coveredIntervals(before, 'evm/erc20/transfer', 'ETH')).toEqual([{ lo: 1, hi: 10 }]);
    const after = await store.snapshot();
    expect(await coveredIntervals(after, 'evm/erc20/transfer', 'ETH')).toEqual([{ lo: 1, hi: 20 }]);
    expect(await coveredIntervals(store, 'evm/erc20/transfer', 'ETH')).toEqual([{ lo: 1, hi: 20 }]);
    // And the old snapshot still answers from its own view, not from what the newer readers cached.
    expect(await coveredIntervals(before, 'evm/erc20/transfer', 'ETH')).toEqual([{ lo: 1, hi: 10 }]);
    await before.close();
    await after.close();
  });

  it('a charge in the usage ledger keeps the cache; the answers are shared and frozen', async () => {
    await addToken('AAA', '0x01');
    const first = await tokensBySymbol(store, 'ETH', 'AAA');
    await store.ledger!.record([{ keyId: 'k', period: '2025-12', requestId: 'r', cost: 1, admittedAt: Date.now(), endpoint: null }]);
    await store.ledger!.settle();
    const second = await tokensBySymbol(store, 'ETH', 'AAA');
    expect(second).toBe(first);
    expect(Object.isFrozen(second[0])).toBe(true);
  });
});

describe('ttlLookup (ClickHouse registry lookups)', () => {
  it('reuses an answer for its lifetime, then reads again', async () => {
    const { ttlLookup } = await import('./lookupCache.ts');
    const owner = {};
    let clock = 1_000;
    let reads = 0;
    const read = () =>
      ttlLookup(
        owner,
        'k',
        async () => ++reads,
        5_000,
        () => clock,
      );
    expect(await read()).toBe(1);
    clock += 4_999;
    expect(await read()).toBe(1);
    clock += 2;
    expect(await read()).toBe(2);
    // Another store has its own entries.
    expect(
      await ttlLookup(
        {},
        'k',
        async () => 'other',
        5_000,
        () => clock,
      ),
    ).toBe('other');
  });
});
