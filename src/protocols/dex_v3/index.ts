/** Uniswap-v3-style pools of the factory configured per network; the factory's PoolCreated logs discover them. */
import { defineProtocol } from '../protocol.ts';
import { dexEndpoints, POOLS_DATASET } from './catalog.ts';
import { dexConfig } from './config.ts';
import { dexDemo } from './demo.ts';
import { planDex, POOL_CREATED_TOPIC } from './decoder.ts';

export const dexV3 = defineProtocol({
  name: 'dex_v3',
  summary: 'concentrated-liquidity pool events (swaps, liquidity added and removed, fees collected)',
  endpoints: dexEndpoints,
  config: dexConfig,
  plan: planDex,
  extraTopics: [POOL_CREATED_TOPIC],
  extraCoverage: [POOLS_DATASET],
  demo: dexDemo,
});
