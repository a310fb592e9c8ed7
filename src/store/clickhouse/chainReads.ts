/** Reads of a network's stored chain in ClickHouse SQL (the contract: ChainReadOperations). */
import type { CachedToken, ChainReadOperations, RegistryToken, StoredPool } from '../types.ts';
import { canonicalHash, chainMark, orphanParent } from './chainLog.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseChainReads(store: () => ClickHouseStore): ChainReadOperations {
  return {
    mark: (network) => chainMark(store(), network),
    canonicalHash: (network, n) => canonicalHash(store(), network, n),
    orphanParent: (network, n, hash) => orphanParent(store(), network, n, hash),
    async blockHashes(network, numbers) {
      const ch = store();
      const rows = await ch.query<{ number: number; hash: string; parent_hash: string }>(
        `SELECT number, hash, parent_hash FROM ${ch.table('blocks')} FINAL WHERE network = {network:String} AND has({numbers:Array(Int64)}, number)`,
        { network, numbers: numbers.map((n) => Math.trunc(n)) },
      );
      return new Map(rows.map((r) => [Number(r.number), { hash: r.hash, parentHash: r.parent_hash }]));
    },
    async tip(network, from) {
      const ch = store();
      const [r] = await ch.query<{ tip: number | null }>(`SELECT maxOrNull(number) AS tip FROM ${ch.table('blocks')} WHERE network = {network:String} AND number >= {from:Int64}`, {
        network,
        from,
      });
      return r?.tip == null ? null : Number(r.tip);
    },
    registryTokens(network) {
      const ch = store();
      return ch.query<RegistryToken>(`SELECT address, symbol, decimals FROM ${ch.table('tokens')} WHERE network = {network:String} AND address != '' ORDER BY symbol`, { network });
    },
    cachedTokens(network) {
      const ch = store();
      return ch.query<CachedToken>(`SELECT address, symbol, decimals FROM ${ch.table('token_cache')} FINAL WHERE network = {network:String}`, { network });
    },
    pools(network) {
      const ch = store();
      return ch.query<StoredPool>(`SELECT * FROM ${ch.table('pools')} WHERE network = {network:String}`, { network });
    },
  };
}
