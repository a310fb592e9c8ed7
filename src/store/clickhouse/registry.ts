/** Registry lookups in ClickHouse SQL (the contract: RegistryOperations), kept for a short time (ttlLookup). */
import { ttlLookup } from '../lookupCache.ts';
import type { RegistryOperations } from '../types.ts';
import * as clickhouse from './lookups.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseRegistry(store: () => ClickHouseStore): RegistryOperations {
  return {
    tokensBySymbol: (network, symbol) => ttlLookup(store(), `tokensBySymbol\0${network}\0${symbol}`, () => clickhouse.tokensBySymbol(store(), network, symbol)),
    registryAddress: (network, input) => ttlLookup(store(), `registryAddress\0${network}\0${input}`, () => clickhouse.registryAddress(store(), network, input)),
    contractDecimals: (network, address) => ttlLookup(store(), `contractDecimals\0${network}\0${address}`, () => clickhouse.contractDecimals(store(), network, address)),
    symbolsWithAlias: (network, alias) => ttlLookup(store(), `symbolsWithAlias\0${network}\0${alias}`, () => clickhouse.symbolsWithAlias(store(), network, alias)),
    poolsBetween: (network, a, b) => ttlLookup(store(), `poolsBetween\0${network}\0${a.join(',')}\0${b.join(',')}`, () => clickhouse.poolsBetween(store(), network, a, b)),
    tokenDirectory: () => ttlLookup(store(), 'tokenDirectory', () => clickhouse.tokenDirectory(store())),
  };
}
