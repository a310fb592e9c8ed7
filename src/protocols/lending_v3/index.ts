/** Aave-v3-style lending pools: the markets configured per network. */
import { defineProtocol } from '../protocol.ts';
import { lendingEndpoints } from './catalog.ts';
import { lendingConfig } from './config.ts';
import { planLending } from './decoder.ts';
import { lendingDemo } from './demo.ts';

export const lendingV3 = defineProtocol({
  name: 'lending_v3',
  summary: 'lending pool events (deposits, withdrawals, borrows, repays, flash loans, liquidations)',
  endpoints: lendingEndpoints,
  config: lendingConfig,
  plan: planLending,
  demo: lendingDemo,
});
