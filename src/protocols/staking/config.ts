/** The staking section of the protocols file: each network's Lido contracts (L1) or wstETH bridge (L2). */
import { ADDRESS_SCHEMA, lowerAddress, type Address } from '../config.ts';
import type { ConfigSpec } from '../protocol.ts';
import { BRIDGE_KINDS, type BridgeKind } from './catalog.ts';

export interface StakingContracts {
  /** L1: the stETH token (Submitted events). */
  readonly steth?: Address;
  /** L1: the WithdrawalQueue (WithdrawalRequested, WithdrawalClaimed). */
  readonly withdrawal_queue?: Address;
  /** L2: the wstETH token bridge (deposit-finalized, withdrawal-initiated). */
  readonly l2_token_bridge?: Address;
  /** L2: the bridged wstETH token. */
  readonly wsteth?: Address;
  /** L2: the wstETH token on L1, for bridges whose events do not name it. */
  readonly l1_wsteth?: Address;
  /** L2: which event dialect the bridge speaks; by default arbitrum on ARB, zksync on ZK, optimism elsewhere. */
  readonly bridge_kind?: BridgeKind;
}

/** wstETH on Ethereum: what every Lido L2 bridge carries. */
export const L1_WSTETH: Address = '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0';

export const DEFAULT_BRIDGE_KIND: Readonly<Record<string, BridgeKind>> = { ARB: 'arbitrum', ZK: 'zksync' };

const CONTRACTS = ['steth', 'withdrawal_queue', 'l2_token_bridge', 'wsteth', 'l1_wsteth'] as const;

type ContractsEntry = { readonly [K in (typeof CONTRACTS)[number]]?: string | null } & { readonly bridge_kind?: BridgeKind };

const NULLABLE_ADDRESS = { ...ADDRESS_SCHEMA, type: ['string', 'null'] } as const;

export const stakingConfig: ConfigSpec<ContractsEntry, StakingContracts> = {
  schema: {
    type: 'object',
    description: 'an object of contract addresses',
    properties: {
      ...Object.fromEntries(CONTRACTS.map((k) => [k, NULLABLE_ADDRESS])),
      bridge_kind: { enum: [...BRIDGE_KINDS], description: 'optimism, arbitrum or zksync' },
    },
  },
  read: (entry) => {
    const out: { -readonly [K in keyof StakingContracts]: StakingContracts[K] } = {};
    for (const k of CONTRACTS) {
      const a = entry[k];
      if (typeof a === 'string') out[k] = lowerAddress(a);
    }
    if (entry.bridge_kind !== undefined) out.bridge_kind = entry.bridge_kind;
    return out;
  },
};
