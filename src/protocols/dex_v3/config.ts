/** The dex_v3 section of the protocols file: each network's pool factory. */
import { ADDRESS_SCHEMA, BLOCK_SCHEMA, lowerAddress, type Address } from '../config.ts';
import type { ConfigSpec } from '../protocol.ts';

export interface DexFactory {
  readonly factory: Address;
  readonly deployed_block: number | null;
}

interface FactoryEntry {
  readonly factory: string;
  readonly deployed_block?: number | null;
}

export const dexConfig: ConfigSpec<FactoryEntry, DexFactory> = {
  schema: { type: 'object', description: 'an object {factory, deployed_block}', required: ['factory'], properties: { factory: ADDRESS_SCHEMA, deployed_block: BLOCK_SCHEMA } },
  read: (entry) => ({ factory: lowerAddress(entry.factory), deployed_block: entry.deployed_block ?? null }),
};
