/**
 * The look at the store that every stream woken by the same chain change
 * takes: one snapshot per network and watcher version, and each read through
 * it (a block's canonical hash, a dataset's covered blocks, the chain's mark)
 * made once and handed to every stream that asks for it. 200 streams woken
 * by one new block then cost a handful of engine reads, not 200 of each.
 *
 * A view is shared only while some stream holds it; the last release closes
 * its snapshot, and the next look at that version takes a new one. A stream
 * asks for the view of the version it read just before, so the views it sees
 * never go back in time, and any change after a view's snapshot moves the
 * version (the watcher's guarantee), waking the stream for a newer view.
 */
import { canonicalHash, chainMark, type ChainMark } from '../../store/chainLog.ts';
import { coveredIntervals, type Interval } from '../../store/coverage.ts';
import type { Store } from '../../store/types.ts';

export interface ChainView {
  /** The snapshot itself, for the reads that are not shared (the batch query, a rollback's ancestor). */
  readonly store: Store;
  /** The hash of canonical block `n`, or null when the snapshot holds no such block. */
  hash(n: number): Promise<string | null>;
  /** The blocks of `dataset` the snapshot covers on the view's network. */
  covered(dataset: string): Promise<Interval[]>;
  mark(): Promise<ChainMark>;
}

export interface HeldView {
  readonly view: ChainView;
  /** Lets go of the view; the snapshot closes when no stream holds it. */
  release(): Promise<void>;
}

export interface ChainViews {
  /** The view of `network` at watcher version `version` (read it just before). */
  acquire(network: string, version: number): Promise<HeldView>;
}

interface Entry {
  readonly snapshot: Promise<Store>;
  holders: number;
  readonly hashes: Map<number, Promise<string | null>>;
  readonly covered: Map<string, Promise<Interval[]>>;
  mark: Promise<ChainMark> | null;
}

function memo<K, V>(cache: Map<K, Promise<V>>, key: K, read: () => Promise<V>): Promise<V> {
  let p = cache.get(key);
  if (!p) {
    p = read();
    cache.set(key, p);
  }
  return p;
}

export function createChainViews(store: Store): ChainViews {
  const entries = new Map<string, Entry>();

  return {
    async acquire(network, version) {
      const key = `${network}\n${version}`;
      let entry = entries.get(key);
      if (!entry) {
        entry = { snapshot: store.snapshot(), holders: 0, hashes: new Map(), covered: new Map(), mark: null };
        entries.set(key, entry);
      }
      const e = entry;
      e.holders++;
      const release = async () => {
        e.holders--;
        if (e.holders > 0) return;
        if (entries.get(key) === e) entries.delete(key);
        await (await e.snapshot).close();
      };
      let snap: Store;
      try {
        snap = await e.snapshot;
      } catch (err) {
        // A snapshot that could not be taken is not handed to the next stream either.
        e.holders--;
        if (entries.get(key) === e) entries.delete(key);
        throw err;
      }
      const view: ChainView = {
        store: snap,
        hash: (n) => memo(e.hashes, n, () => canonicalHash(snap, network, n)),
        covered: (dataset) => memo(e.covered, dataset, () => coveredIntervals(snap, dataset, network)),
        mark() {
          e.mark ??= chainMark(snap, network);
          return e.mark;
        },
      };
      return { view, release };
    },
  };
}
