/**
 * The store's demo entry: it writes what the plan's engine-neutral parts
 * build (here Bitcoin's blocks, made outside the store) and refuses a plan
 * out of range before writing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BTC_DEMO } from '../../src/demo/btc.ts';
import { DEMO_START } from '../../src/demo/generate.ts';
import { coveredIntervals } from '../../src/store/coverage.ts';
import { writeDemoStore, type DemoPlan } from '../../src/store/demo.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

// A tenth of a day of Bitcoin only: a dozen or so blocks, no other network.
const window = { scale: 0.05, days: 0.1, start: DEMO_START };
const plan: DemoPlan = { ...window, startBlocks: {}, only: ['btc'], btc: BTC_DEMO };

describe('writeDemoStore', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('writes the blocks and transfer rows the plan’s Bitcoin builder makes, covered from its first block to its last', async () => {
    store = await createStore({ dataDir: null });
    await writeDemoStore(store, plan);
    const built = BTC_DEMO.build(window, []);
    const last = built.blocks.at(-1);
    expect(last).toBeDefined();
    const [blocks] = await engineSql(store).all<{ n: bigint; lo: bigint; hi: bigint }>(`SELECT count(*) AS n, min(number) AS lo, max(number) AS hi FROM blocks WHERE network = 'BTC'`);
    expect(blocks).toEqual({ n: BigInt(built.blocks.length), lo: BigInt(BTC_DEMO.firstBlock), hi: BigInt(last?.number ?? -1) });
    const rows = await engineSql(store).all<{ tx_hash: string; vout: number; amount_raw: bigint }>(`SELECT tx_hash, vout, amount_raw FROM btc_native_transfer ORDER BY block_number, tx_index, vout`);
    expect(rows.length).toBe(built.transfers.length);
    expect(rows.length).toBeGreaterThan(built.blocks.length);
    expect(await coveredIntervals(store, BTC_DEMO.dataset, BTC_DEMO.network)).toEqual([{ lo: BTC_DEMO.firstBlock, hi: last?.number }]);
  });

  it('refuses a window outside (0, 60] days or a non-positive scale, writing nothing', async () => {
    store = await createStore({ dataDir: null });
    await expect(writeDemoStore(store, { ...plan, days: 61 })).rejects.toThrow('days in (0, 60]');
    await expect(writeDemoStore(store, { ...plan, scale: 0 })).rejects.toThrow('scale must be > 0');
    const [n] = await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM btc_native_transfer`);
    expect(n?.n).toBe(0n);
  });
});
