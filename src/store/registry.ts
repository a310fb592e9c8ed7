/**
 * Lookups in the reference tables (tokens, token_cache, pools) that the
 * planners and discovery need. The store answers in plain values; deciding
 * what a user's text means stays in query/resolve.ts. Each engine answers in
 * its own folder (`store.registry`).
 */
import type { PoolRow, Store, TokenDeployment, TokenListing } from './types.ts';

export type { PoolRow, TokenDeployment, TokenListing } from './types.ts';

/** Deployments on `network` whose symbol or an alias is `symbol` (upper case); exact symbols first. */
export const tokensBySymbol = (store: Store, network: string, symbol: string): Promise<TokenDeployment[]> => store.registry.tokensBySymbol(network, symbol);

/** The registry's spelling of a contract address given in any letter case; an exact match first. */
export const registryAddress = (store: Store, network: string, input: string): Promise<string | null> => store.registry.registryAddress(network, input);

/** Decimals of a token contract: the registry's, else what ingestion read on chain (token_cache), else null. */
export const contractDecimals = (store: Store, network: string, address: string): Promise<number | null> => store.registry.contractDecimals(network, address);

/** Upper-case symbols on `network` that list `alias` (upper case) among their aliases. */
export const symbolsWithAlias = (store: Store, network: string, alias: string): Promise<string[]> => store.registry.symbolsWithAlias(network, alias);

/** Pools on `network` between a token named in `a` and one named in `b` (upper-case symbols), either way round, by fee. */
export const poolsBetween = (store: Store, network: string, a: readonly string[], b: readonly string[]): Promise<PoolRow[]> => store.registry.poolsBetween(network, a, b);

/** Every token of the registry with its deployments, by symbol. */
export const tokenDirectory = (store: Store): Promise<TokenListing[]> => store.registry.tokenDirectory();
