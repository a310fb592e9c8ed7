/**
 * What EVM ingestion reads back from the store while it runs: stored block
 * hashes (reorg checks), the newest stored block, the token registry and the
 * token metadata it read on chain before, and the pools it discovered. Each
 * engine answers in its own folder (`store.chainReads`).
 */
import type { CachedToken, RegistryToken, Store, StoredBlock, StoredPool } from './types.ts';

export type { CachedToken, RegistryToken, StoredBlock, StoredPool } from './types.ts';

export const storedBlockHashes = (store: Store, network: string, numbers: readonly number[]): Promise<Map<number, StoredBlock>> => store.chainReads.blockHashes(network, numbers);

/** The newest stored block of `network` at or above `from`, or null. */
export const storedTip = (store: Store, network: string, from: number): Promise<number | null> => store.chainReads.tip(network, from);

/** The registry's deployments on `network`, by symbol. */
export const registryTokens = (store: Store, network: string): Promise<RegistryToken[]> => store.chainReads.registryTokens(network);

/** What ingestion read on chain about tokens the registry does not list. */
export const cachedTokens = (store: Store, network: string): Promise<CachedToken[]> => store.chainReads.cachedTokens(network);

export const storedPools = (store: Store, network: string): Promise<StoredPool[]> => store.chainReads.pools(network);
