import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../store/openStore.ts';
import type { Store } from '../../store/types.ts';
import { createChainViews } from './chainViews.ts';

const hashOf = (n: number) => `0x${n.toString(16).padStart(64, 'd')}`;

let store: Store;
let snapshots = 0;
let hashReads = 0;

beforeAll(async () => {
  store = await createStore({ dataDir: null });
  await store.chain.publish({
    network: 'ETH',
    lo: 100,
    hi: 100,
    parentHash: hashOf(99),
    blocks: [{ number: 100, time: '2030-01-01 00:00:00', hash: hashOf(100), parentHash: hashOf(99) }],
    tables: [],
    covers: ['evm/erc20/transfer'],
    uncovers: [],
  });
  const take = store.snapshot.bind(store);
  store.snapshot = async () => {
    snapshots++;
    const snap = await take();
    const read = snap.chainReads.canonicalHash.bind(snap.chainReads);
    // Counted on the snapshot's own reads: each view takes its own snapshot, so no read is counted twice.
    snap.chainReads.canonicalHash = (network, n) => {
      hashReads++;
      return read(network, n);
    };
    return snap;
  };
});

afterAll(async () => {
  await store?.close();
});

describe('chain views shared by the streams woken by one change', () => {
  it('ten streams looking at the same version share one snapshot, and one read of a block hash answers all of them', async () => {
    const views = createChainViews(store);
    const [s0, h0] = [snapshots, hashReads];
    const held = await Promise.all(Array.from({ length: 10 }, () => views.acquire('ETH', 0)));
    const hashes = await Promise.all(held.map((h) => h.view.hash(100)));
    const covered = await Promise.all(held.map((h) => h.view.covered('evm/erc20/transfer')));
    expect(hashes).toEqual(Array(10).fill(hashOf(100)));
    expect(covered[9]).toEqual([{ lo: 100, hi: 100 }]);
    expect(snapshots - s0).toBe(1);
    expect(hashReads - h0).toBe(1);
    await Promise.all(held.map((h) => h.release()));
  });

  it('a view lives while a stream holds it: a new version, or the same one after the last release, takes a new snapshot', async () => {
    const views = createChainViews(store);
    const s0 = snapshots;
    const first = await views.acquire('ETH', 0);
    const same = await views.acquire('ETH', 0);
    expect(same.view.store).toBe(first.view.store);
    const next = await views.acquire('ETH', 1);
    expect(next.view.store).not.toBe(first.view.store);
    await Promise.all([first.release(), same.release(), next.release()]);
    const again = await views.acquire('ETH', 0);
    expect(again.view.store).not.toBe(first.view.store);
    await again.release();
    expect(snapshots - s0).toBe(3);
  });
});
