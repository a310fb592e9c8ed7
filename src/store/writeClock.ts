/**
 * Writes through a store are the only writes to its file (one process owns
 * it), so counting them tells when a cached lookup still holds
 * (../lookupCache.ts) and whether a view opened ahead is still current.
 */
import { createLookupCache } from './lookupCache.ts';

export interface WriteClock {
  /** Changes when a write begins and when it ends. */
  readonly version: number;
  /** Writes under way. */
  readonly writers: number;
  /** Runs a write, counted; `beforeWrite` runs first. */
  writing<T>(write: () => Promise<T>): Promise<T>;
  /** A lookup at the current version, kept only if no write began or ended while it ran. */
  lookup<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** A lookup of a view fixed at version `seen`. */
  lookupAt<T>(seen: number, key: string, compute: () => Promise<T>): Promise<T>;
}

export function createWriteClock(beforeWrite: () => void): WriteClock {
  const lookups = createLookupCache();
  let version = 0;
  let writers = 0;
  return {
    get version() {
      return version;
    },
    get writers() {
      return writers;
    },
    async writing(write) {
      beforeWrite();
      writers++;
      version++;
      try {
        return await write();
      } finally {
        writers--;
        version++;
      }
    },
    lookup(key, compute) {
      if (writers > 0) return compute();
      const v = version;
      return lookups.get(v, key, compute, () => writers === 0 && version === v);
    },
    lookupAt: (seen, key, compute) => lookups.get(seen, key, compute, () => true),
  };
}
