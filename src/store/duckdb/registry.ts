/** Registry lookups in DuckDB SQL (the contract: RegistryOperations), through the store's lookup cache. */
import type { PoolRow, RegistryOperations, TokenDeployment } from '../types.ts';
import type { DuckDbStatements } from './types.ts';
import { DuckDbBinder } from './binder.ts';

/** `lookup` is the store's (or the snapshot's) cache of planners' lookups (../lookupCache.ts). */
export function duckDbRegistry(store: Pick<DuckDbStatements, 'all'>, lookup: <T>(key: string, compute: () => Promise<T>) => Promise<T>): RegistryOperations {
  return {
    tokensBySymbol(network, symbol) {
      return lookup(`tokensBySymbol\0${network}\0${symbol}`, () =>
        store.all<TokenDeployment>(
          `SELECT symbol, address, decimals FROM tokens
         WHERE network = $network AND address <> '' AND (upper(symbol) = $sym OR list_contains(list_transform(aliases, a -> upper(a)), $sym))
         ORDER BY (upper(symbol) = $sym) DESC, symbol`,
          { network, sym: symbol },
        ),
      );
    },
    registryAddress(network, input) {
      return lookup(`registryAddress\0${network}\0${input}`, async () => {
        const rows = await store.all<{ address: string }>(`SELECT address FROM tokens WHERE network = $network AND lower(address) = lower($input) ORDER BY (address = $input) DESC LIMIT 1`, {
          network,
          input,
        });
        return rows[0]?.address ?? null;
      });
    },
    contractDecimals(network, address) {
      return lookup(`contractDecimals\0${network}\0${address}`, async () => {
        const rows = await store.all<{ decimals: number }>(
          `SELECT decimals FROM (
             SELECT decimals, 0 AS pref FROM tokens WHERE network = $network AND address = $address
             UNION ALL SELECT decimals, 1 AS pref FROM token_cache WHERE network = $network AND address = $address AND decimals IS NOT NULL)
           ORDER BY pref LIMIT 1`,
          { network, address },
        );
        return rows[0]?.decimals ?? null;
      });
    },
    symbolsWithAlias(network, alias) {
      return lookup(`symbolsWithAlias\0${network}\0${alias}`, async () => {
        const rows = await store.all<{ symbol: string }>(
          `SELECT DISTINCT upper(symbol) AS symbol FROM tokens WHERE network = $network AND list_contains(list_transform(aliases, a -> upper(a)), $sym)`,
          {
            network,
            sym: alias,
          },
        );
        return rows.map((r) => r.symbol);
      });
    },
    poolsBetween(network, a, b) {
      return lookup(`poolsBetween\0${network}\0${a.join(',')}\0${b.join(',')}`, () => {
        const q = new DuckDbBinder();
        const inA = q.bindList(a);
        const inB = q.bindList(b);
        return store.all<PoolRow>(
          `SELECT pool_address, token0, token1, fee FROM pools
           WHERE network = ${q.bind(network)}
             AND ((upper(token0) IN ${inA} AND upper(token1) IN ${inB}) OR (upper(token0) IN ${inB} AND upper(token1) IN ${inA}))
           ORDER BY fee`,
          q.params,
        );
      });
    },
    tokenDirectory() {
      return lookup('tokenDirectory', async () => {
        const rows = await store.all<{ symbol: string; name: string; aliases: string[] | null; deployments: { network: string; address: string; decimals: number }[] }>(
          `SELECT symbol, any_value(name) AS name, any_value(aliases) AS aliases,
                  list({'network': network, 'address': address, 'decimals': decimals} ORDER BY network) AS deployments
           FROM tokens GROUP BY symbol ORDER BY symbol`,
        );
        return rows.map((r) => ({ symbol: r.symbol, name: r.name, aliases: r.aliases ?? [], deployments: r.deployments }));
      });
    },
  };
}
