/**
 * Answers of the planners' lookups (tokens, aliases, pools, coverage, block
 * edges, physical order) kept between requests until the store changes
 * (README, "Performance"). Each lookup is a small engine query of about a
 * millisecond, and a small request makes several; they only change when
 * ingestion or an import commits.
 *
 * Correctness rests on versions: the store counts every write that starts and
 * ends (`StoreVersion`), and a cached answer is used only by a reader whose
 * view of the store is exactly that version: a snapshot opened while no write
 * was in progress and none began or ended meanwhile, or a direct read that saw
 * no write begin or end while it ran. Any other reader computes afresh.
 */

import type { Store } from './types.ts';

/** Keys are bounded per version: lookup arguments include user text, so the map cannot grow without bound. */
const MAX_ENTRIES = 10_000;

export interface LookupCache {
  /**
   * The cached answer of `key` for a reader at `version`, else `compute()`'s,
   * kept for later readers when `stableAfter()` says no write began or ended
   * while it ran. Answers are frozen: callers share them.
   */
  get<T>(version: number, key: string, compute: () => Promise<T>, stableAfter: () => boolean): Promise<T>;
}

export function createLookupCache(): LookupCache {
  let at = -1;
  const entries = new Map<string, unknown>();
  return {
    async get<T>(version: number, key: string, compute: () => Promise<T>, stableAfter: () => boolean): Promise<T> {
      if (at === version && entries.has(key)) return entries.get(key) as T;
      const value = deepFreeze(await compute());
      if (!stableAfter()) return value;
      if (at !== version) {
        // Only the newest version is worth keeping: older readers finish soon and compute their own.
        if (version < at) return value;
        entries.clear();
        at = version;
      }
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, value);
      return value;
    },
  };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** `compute()`'s answer through the store's cache when it has one (DuckDB), else computed each time. */
export function cachedLookup<T>(store: Store, key: string, compute: () => Promise<T>): Promise<T> {
  return store.lookup ? store.lookup(key, compute) : compute();
}

/** How long a ClickHouse store keeps a registry lookup: what the README promises for changes made elsewhere. */
export const SHARED_LOOKUP_TTL_MS = 5_000;

const shared = new WeakMap<object, Map<string, { readonly until: number; readonly value: unknown }>>();

/**
 * A lookup kept for `ttlMs` per store, for engines written to by other
 * processes (ClickHouse), where no local version can tell that it changed.
 * Used for the token and pool registry only, which changes by imports that
 * the README says take effect within 5 s; coverage is always read afresh.
 */
export async function ttlLookup<T>(owner: object, key: string, compute: () => Promise<T>, ttlMs = SHARED_LOOKUP_TTL_MS, now = Date.now): Promise<T> {
  let entries = shared.get(owner);
  if (!entries) {
    entries = new Map();
    shared.set(owner, entries);
  }
  const hit = entries.get(key);
  if (hit && hit.until > now()) return hit.value as T;
  const value = deepFreeze(await compute());
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, { until: now() + ttlMs, value });
  return value;
}
