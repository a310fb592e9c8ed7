/**
 * The chain log: what a rollback removed, kept so that a position on a block
 * that is no longer canonical (a stream's cursor) can be traced back to the
 * common ancestor with the chain the store holds now. Written by the rollback
 * itself, in its transaction (DuckDB, src/store/duckdb/chainLog.ts) or just
 * before its deletes (ClickHouse, src/store/clickhouse/chainLog.ts), so a removed block is never forgotten.
 */
import type { ChainMark, Store } from './types.ts';

export type { ChainMark } from './types.ts';

export const chainMark = (store: Store, network: string): Promise<ChainMark> => store.chainReads.mark(network);

/** The hash of canonical block `n` of `network` as stored, or null when the store holds no such block. */
export const canonicalHash = (store: Store, network: string, n: number): Promise<string | null> => store.chainReads.canonicalHash(network, n);

export interface BlockRef {
  readonly number: number;
  readonly hash: string;
}

/**
 * Where block `n` with `hash` meets the canonical chain: itself when it is
 * canonical, else the newest canonical block among its ancestors, followed
 * through the chain log. Null when the log does not know the block (never
 * stored here, or a hash made up).
 */
export async function commonAncestor(store: Store, network: string, n: number, hash: string): Promise<BlockRef | null> {
  let at = n;
  let h = hash;
  while (at >= 0) {
    if ((await canonicalHash(store, network, at)) === h) return { number: at, hash: h };
    const parent = await store.chainReads.orphanParent(network, at, h);
    if (parent === null) return null;
    at--;
    h = parent;
  }
  return null;
}
