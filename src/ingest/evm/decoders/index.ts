/**
 * The decoder registry: each built-in EVM protocol of the catalog and how a
 * run plans it (its decoder, the datasets it can fill on a network). Adding a
 * protocol adds its catalog file and one entry here (docs/adding-a-protocol.md);
 * a test fails when the catalog and the registry disagree.
 */
import { planDex } from './dex_v3.ts';
import { planErc20 } from './erc20.ts';
import { planLending } from './lending_v3.ts';
import { planNative } from './native.ts';
import { planStaking } from './staking.ts';
import type { PlanProtocol } from '../types.ts';

/** In the order a run plans them. */
export const EVM_DECODERS = {
  erc20: planErc20,
  native: planNative,
  lending_v3: planLending,
  dex_v3: planDex,
  staking: planStaking,
} as const satisfies Readonly<Record<string, PlanProtocol>>;

export type EvmProtocol = keyof typeof EVM_DECODERS;
export const EVM_PROTOCOLS = Object.keys(EVM_DECODERS) as EvmProtocol[];
