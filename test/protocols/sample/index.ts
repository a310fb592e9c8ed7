/**
 * A protocol defined outside src/: the tests plug it in through the registry
 * (CHAINQ_PROTOCOLS=test/protocols/sample/index.ts), ingest it from anvil and
 * serve it, to show that a protocol needs nothing outside its folder.
 */
import { ADDRESS_SCHEMA, lowerAddress } from '../../../src/protocols/config.ts';
import { defineProtocol } from '../../../src/protocols/protocol.ts';
import { sampleDeposit } from './catalog.ts';
import { planSample } from './decoder.ts';
import { sampleDemo } from './demo.ts';

export const protocol = defineProtocol({
  name: 'sample',
  summary: 'deposits of test vaults',
  endpoints: [sampleDeposit],
  config: {
    schema: { type: 'object', required: ['vaults'], properties: { vaults: { type: 'array', items: ADDRESS_SCHEMA, description: 'a list of vault addresses' } } },
    read: (entry: { vaults: readonly string[] }) => entry.vaults.map(lowerAddress),
  },
  plan: planSample,
  demo: sampleDemo,
});
