/**
 * The chain log: what a rollback removed, kept so that a position on a block
 * that is no longer canonical (a stream's cursor) can be traced back to the
 * common ancestor with the chain the store holds now. Written by the rollback
 * itself, in its transaction (DuckDB, src/store/duckdb/chainLog.ts) or just
 * before its deletes (ClickHouse, src/store/clickhouse/chainLog.ts), so a removed block is never forgotten.
 */
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import * as clickhouse from './clickhouse/chainLog.ts';
import type { Store } from './types.ts';

/** A cheap fingerprint of a network's chain: a new block or a rollback changes it. */
export interface ChainMark {
  readonly newest: number | null;
  readonly orphans: number;
}

export async function chainMark(store: Store, network: string): Promise<ChainMark> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.chainMark(ch, network);
  const [r] = await store.all<{ newest: bigint | null; orphans: bigint }>(
    `SELECT (SELECT max(number) FROM blocks WHERE network = $network) AS newest, (SELECT count(*) FROM orphaned_blocks WHERE network = $network) AS orphans`,
    { network },
  );
  return { newest: r?.newest == null ? null : Number(r.newest), orphans: Number(r?.orphans ?? 0) };
}

/** The hash of canonical block `n` of `network` as stored, or null when the store holds no such block. */
export async function canonicalHash(store: Store, network: string, n: number): Promise<string | null> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.canonicalHash(ch, network, n);
  const [r] = await store.all<{ hash: string }>(`SELECT hash FROM blocks WHERE network = $network AND number = $n LIMIT 1`, { network, n });
  return r?.hash ?? null;
}

/** The parent of a block the chain log kept, or null when it never saw that block. */
async function orphanParent(store: Store, network: string, n: number, hash: string): Promise<string | null> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.orphanParent(ch, network, n, hash);
  const [r] = await store.all<{ parent_hash: string }>(`SELECT parent_hash FROM orphaned_blocks WHERE network = $network AND number = $n AND hash = $hash LIMIT 1`, {
    network,
    n,
    hash,
  });
  return r?.parent_hash ?? null;
}

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
    const parent = await orphanParent(store, network, at, h);
    if (parent === null) return null;
    at--;
    h = parent;
  }
  return null;
}
