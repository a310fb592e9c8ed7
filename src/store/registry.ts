/**
 * Lookups in the reference tables (tokens, token_cache, pools) that the
 * planners and discovery need. The store answers in plain values; deciding
 * what a user's text means stays in query/resolve.ts.
 */
import type { PoolRow, Store, TokenDeployment, TokenListing } from './types.ts';

export type { PoolRow, TokenDeployment, TokenListing } from './types.ts';
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import * as clickhouse from './clickhouse/lookups.ts';
import { DuckDbBinder } from './duckdb/binder.ts';
import { cachedLookup, ttlLookup } from './lookupCache.ts';

/** Deployments on `network` whose symbol or an alias is `symbol` (upper case); exact symbols first. */
export async function tokensBySymbol(store: Store, network: string, symbol: string): Promise<TokenDeployment[]> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, `tokensBySymbol\0${network}\0${symbol}`, () => clickhouse.tokensBySymbol(ch, network, symbol));
  return cachedLookup(store, `tokensBySymbol\0${network}\0${symbol}`, () =>
    store.all<TokenDeployment>(
      `SELECT symbol, address, decimals FROM tokens
     WHERE network = $network AND address <> '' AND (upper(symbol) = $sym OR list_contains(list_transform(aliases, a -> upper(a)), $sym))
     ORDER BY (upper(symbol) = $sym) DESC, symbol`,
      { network, sym: symbol },
    ),
  );
}

/** The registry's spelling of a contract address given in any letter case; an exact match first. */
export async function registryAddress(store: Store, network: string, input: string): Promise<string | null> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, `registryAddress\0${network}\0${input}`, () => clickhouse.registryAddress(ch, network, input));
  return cachedLookup(store, `registryAddress\0${network}\0${input}`, async () => {
    const rows = await store.all<{ address: string }>(`SELECT address FROM tokens WHERE network = $network AND lower(address) = lower($input) ORDER BY (address = $input) DESC LIMIT 1`, {
      network,
      input,
    });
    return rows[0]?.address ?? null;
  });
}

/** Decimals of a token contract: the registry's, else what ingestion read on chain (token_cache), else null. */
export async function contractDecimals(store: Store, network: string, address: string): Promise<number | null> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, `contractDecimals\0${network}\0${address}`, () => clickhouse.contractDecimals(ch, network, address));
  return cachedLookup(store, `contractDecimals\0${network}\0${address}`, async () => {
    const rows = await store.all<{ decimals: number }>(
      `SELECT decimals FROM (
         SELECT decimals, 0 AS pref FROM tokens WHERE network = $network AND address = $address
         UNION ALL SELECT decimals, 1 AS pref FROM token_cache WHERE network = $network AND address = $address AND decimals IS NOT NULL)
       ORDER BY pref LIMIT 1`,
      { network, address },
    );
    return rows[0]?.decimals ?? null;
  });
}

/** Upper-case symbols on `network` that list `alias` (upper case) among their aliases. */
export async function symbolsWithAlias(store: Store, network: string, alias: string): Promise<string[]> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, `symbolsWithAlias\0${network}\0${alias}`, () => clickhouse.symbolsWithAlias(ch, network, alias));
  return cachedLookup(store, `symbolsWithAlias\0${network}\0${alias}`, async () => {
    const rows = await store.all<{ symbol: string }>(`SELECT DISTINCT upper(symbol) AS symbol FROM tokens WHERE network = $network AND list_contains(list_transform(aliases, a -> upper(a)), $sym)`, {
      network,
      sym: alias,
    });
    return rows.map((r) => r.symbol);
  });
}

/** Pools on `network` between a token named in `a` and one named in `b` (upper-case symbols), either way round, by fee. */
export async function poolsBetween(store: Store, network: string, a: readonly string[], b: readonly string[]): Promise<PoolRow[]> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, `poolsBetween\0${network}\0${a.join(',')}\0${b.join(',')}`, () => clickhouse.poolsBetween(ch, network, a, b));
  return cachedLookup(store, `poolsBetween\0${network}\0${a.join(',')}\0${b.join(',')}`, () => {
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
}

/** Every token of the registry with its deployments, by symbol. */
export async function tokenDirectory(store: Store): Promise<TokenListing[]> {
  const ch = clickHouseOf(store);
  if (ch) return ttlLookup(ch, 'tokenDirectory', () => clickhouse.tokenDirectory(ch));
  return cachedLookup(store, 'tokenDirectory', async () => {
    const rows = await store.all<{ symbol: string; name: string; aliases: string[] | null; deployments: { network: string; address: string; decimals: number }[] }>(
      `SELECT symbol, any_value(name) AS name, any_value(aliases) AS aliases,
              list({'network': network, 'address': address, 'decimals': decimals} ORDER BY network) AS deployments
       FROM tokens GROUP BY symbol ORDER BY symbol`,
    );
    return rows.map((r) => ({ symbol: r.symbol, name: r.name, aliases: r.aliases ?? [], deployments: r.deployments }));
  });
}
