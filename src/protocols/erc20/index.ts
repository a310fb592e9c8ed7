/** ERC-20 transfers of any contract, decoded by the engine. */
import { defineProtocol } from '../protocol.ts';
import { erc20Transfer } from './catalog.ts';
import { planErc20 } from './decoder.ts';
import { erc20Demo } from './demo.ts';

export const erc20 = defineProtocol({
  name: 'erc20',
  summary: 'ERC-20 transfers of any token contract',
  endpoints: [erc20Transfer],
  plan: planErc20,
  demo: erc20Demo,
});
