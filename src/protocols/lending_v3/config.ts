/** The lending_v3 section of the protocols file: each network's markets (name, Pool contract, first block). */
import { ADDRESS_SCHEMA, BLOCK_SCHEMA, lowerAddress, type Address } from '../config.ts';
import type { ConfigSpec } from '../protocol.ts';

export interface LendingMarket {
  /** Market name: Core, Prime or EtherFi on ETH (the eth_market_type values); Core elsewhere. */
  readonly market: string;
  readonly pool: Address;
  readonly deployed_block: number | null;
}

interface MarketEntry {
  readonly market: string;
  readonly pool: string;
  readonly deployed_block?: number | null;
}

export const lendingConfig: ConfigSpec<readonly MarketEntry[], readonly LendingMarket[]> = {
  schema: {
    type: 'array',
    description: 'a list of {market, pool, deployed_block}',
    items: {
      type: 'object',
      required: ['market', 'pool'],
      properties: { market: { type: 'string', minLength: 1, description: 'a name such as Core' }, pool: ADDRESS_SCHEMA, deployed_block: BLOCK_SCHEMA },
    },
  },
  read: (entry) => entry.map((m) => ({ market: m.market, pool: lowerAddress(m.pool), deployed_block: m.deployed_block ?? null })),
};
