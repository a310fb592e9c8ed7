/** Reads of a network's stored chain in DuckDB SQL (the contract: ChainReadOperations). */
import type { ChainReadOperations, CachedToken, RegistryToken, StoredPool } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

export function duckDbChainReads(db: Pick<DuckDbStatements, 'all'>): ChainReadOperations {
  return {
    async mark(network) {
      const [r] = await db.all<{ newest: bigint | null; orphans: bigint }>(
        `SELECT (SELECT max(number) FROM blocks WHERE network = $network) AS newest, (SELECT count(*) FROM orphaned_blocks WHERE network = $network) AS orphans`,
        { network },
      );
      return { newest: r?.newest == null ? null : Number(r.newest), orphans: Number(r?.orphans ?? 0) };
    },
    async canonicalHash(network, n) {
      const [r] = await db.all<{ hash: string }>(`SELECT hash FROM blocks WHERE network = $network AND number = $n LIMIT 1`, { network, n });
      return r?.hash ?? null;
    },
    async orphanParent(network, n, hash) {
      const [r] = await db.all<{ parent_hash: string }>(`SELECT parent_hash FROM orphaned_blocks WHERE network = $network AND number = $n AND hash = $hash LIMIT 1`, {
        network,
        n,
        hash,
      });
      return r?.parent_hash ?? null;
    },
    async blockHashes(network, numbers) {
      const list = numbers.map((n) => Math.trunc(n));
      const rows = await db.all<{ number: bigint; hash: string; parent_hash: string }>(`SELECT number, hash, parent_hash FROM blocks WHERE network = $network AND number IN (${list.join(', ')})`, {
        network,
      });
      return new Map(rows.map((r) => [Number(r.number), { hash: r.hash, parentHash: r.parent_hash }]));
    },
    async tip(network, from) {
      const [r] = await db.all<{ tip: bigint | null }>(`SELECT max(number) AS tip FROM blocks WHERE network = $network AND number >= $from`, { network, from });
      return r?.tip == null ? null : Number(r.tip);
    },
    registryTokens: (network) => db.all<RegistryToken>(`SELECT address, symbol, decimals FROM tokens WHERE network = $network AND address <> '' ORDER BY symbol`, { network }),
    cachedTokens: (network) => db.all<CachedToken>(`SELECT address, symbol, decimals FROM token_cache WHERE network = $network`, { network }),
    pools: (network) => db.all<StoredPool>(`SELECT * FROM pools WHERE network = $network`, { network }),
  };
}
