/**
 * Registry lookups in ClickHouse SQL (the contract: RegistryOperations):
 * kept for a short time (ttlLookup) on a server, until this process writes
 * again on chDB (the store's lookup cache).
 */
import { ttlLookup } from '../lookupCache.ts';
import type { RegistryOperations } from '../types.ts';
import type { Lookup } from './coverageReads.ts';
import * as clickhouse from './lookups.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. Without `lookup`, answers are kept 5 s for the store object. */
export function clickHouseRegistry(store: () => ClickHouseStore, lookup: Lookup = (key, compute) => ttlLookup(store(), key, compute)): RegistryOperations {
  return {
    tokensBySymbol: (network, symbol) => lookup(`tokensBySymbol\0${network}\0${symbol}`, () => clickhouse.tokensBySymbol(store(), network, symbol)),
    registryAddress: (network, input) => lookup(`registryAddress\0${network}\0${input}`, () => clickhouse.registryAddress(store(), network, input)),
    contractDecimals: (network, address) => lookup(`contractDecimals\0${network}\0${address}`, () => clickhouse.contractDecimals(store(), network, address)),
    symbolsWithAlias: (network, alias) => lookup(`symbolsWithAlias\0${network}\0${alias}`, () => clickhouse.symbolsWithAlias(store(), network, alias)),
    poolsBetween: (network, a, b) => lookup(`poolsBetween\0${network}\0${a.join(',')}\0${b.join(',')}`, () => clickhouse.poolsBetween(store(), network, a, b)),
    tokenDirectory: () => lookup('tokenDirectory', () => clickhouse.tokenDirectory(store())),
  };
}
