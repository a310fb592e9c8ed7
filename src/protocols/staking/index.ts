/** Liquid staking: Lido's contracts on Ethereum and its wstETH bridges on L2s. */
import { eventSelector } from '../eventSelector.ts';
import { defineProtocol } from '../protocol.ts';
import { STAKING_BRIDGE_ABI, stakingEndpoints } from './catalog.ts';
import { stakingConfig } from './config.ts';
import { planStaking } from './decoder.ts';
import { stakingDemo } from './demo.ts';

export const staking = defineProtocol({
  name: 'staking',
  summary: 'liquid staking deposits and withdrawals (L1) and bridged wstETH (L2)',
  endpoints: stakingEndpoints,
  config: stakingConfig,
  plan: planStaking,
  demo: stakingDemo,
  // Each bridge dialect's events: which one a network's bridge speaks is configured.
  extraTopics: Object.values(STAKING_BRIDGE_ABI)
    .flatMap((d) => Object.values(d).flat())
    .map((a) => eventSelector(a)),
});
