/**
 * What EVM ingestion reads back from the store while it runs: stored block
 * hashes (reorg checks), the newest stored block, the token registry and the
 * token metadata it read on chain before, and the pools it discovered. In
 * each engine's SQL.
 */
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import type { Store } from './types.ts';

export interface StoredBlock {
  readonly hash: string;
  readonly parentHash: string;
}

export async function storedBlockHashes(store: Store, network: string, numbers: readonly number[]): Promise<Map<number, StoredBlock>> {
  const list = numbers.map((n) => Math.trunc(n));
  const ch = clickHouseOf(store);
  const rows = ch
    ? await ch.query<{ number: number; hash: string; parent_hash: string }>(
        `SELECT number, hash, parent_hash FROM ${ch.table('blocks')} FINAL WHERE network = {network:String} AND has({numbers:Array(Int64)}, number)`,
        { network, numbers: list },
      )
    : await store.all<{ number: bigint; hash: string; parent_hash: string }>(`SELECT number, hash, parent_hash FROM blocks WHERE network = $network AND number IN (${list.join(', ')})`, { network });
  return new Map(rows.map((r) => [Number(r.number), { hash: r.hash, parentHash: r.parent_hash }]));
}

/** The newest stored block of `network` at or above `from`, or null. */
export async function storedTip(store: Store, network: string, from: number): Promise<number | null> {
  const ch = clickHouseOf(store);
  const [r] = ch
    ? await ch.query<{ tip: number | null }>(`SELECT maxOrNull(number) AS tip FROM ${ch.table('blocks')} WHERE network = {network:String} AND number >= {from:Int64}`, { network, from })
    : await store.all<{ tip: bigint | null }>(`SELECT max(number) AS tip FROM blocks WHERE network = $network AND number >= $from`, { network, from });
  return r?.tip == null ? null : Number(r.tip);
}

export interface RegistryToken {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** The registry's deployments on `network`, by symbol. */
export async function registryTokens(store: Store, network: string): Promise<RegistryToken[]> {
  const ch = clickHouseOf(store);
  if (ch) return ch.query<RegistryToken>(`SELECT address, symbol, decimals FROM ${ch.table('tokens')} WHERE network = {network:String} AND address != '' ORDER BY symbol`, { network });
  return store.all<RegistryToken>(`SELECT address, symbol, decimals FROM tokens WHERE network = $network AND address <> '' ORDER BY symbol`, { network });
}

export interface CachedToken {
  readonly address: string;
  readonly symbol: string | null;
  readonly decimals: number | null;
}

/** What ingestion read on chain about tokens the registry does not list. */
export async function cachedTokens(store: Store, network: string): Promise<CachedToken[]> {
  const ch = clickHouseOf(store);
  if (ch) return ch.query<CachedToken>(`SELECT address, symbol, decimals FROM ${ch.table('token_cache')} FINAL WHERE network = {network:String}`, { network });
  return store.all<CachedToken>(`SELECT address, symbol, decimals FROM token_cache WHERE network = $network`, { network });
}

export interface StoredPool {
  readonly pool_address: string;
  readonly fee: number;
  readonly created_block: number | bigint | null;
  readonly token0_address: string;
  readonly token0: string;
  readonly token0_decimals: number;
  readonly token1_address: string;
  readonly token1: string;
  readonly token1_decimals: number;
}

export async function storedPools(store: Store, network: string): Promise<StoredPool[]> {
  const ch = clickHouseOf(store);
  if (ch) return ch.query<StoredPool>(`SELECT * FROM ${ch.table('pools')} WHERE network = {network:String}`, { network });
  return store.all<StoredPool>(`SELECT * FROM pools WHERE network = $network`, { network });
}
