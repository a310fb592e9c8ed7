/** The sample protocol's demo rows: deposits into one made-up vault on Ethereum, through the same description as the built-in protocols. */
import { amountColumns, constant, LOG_KEY_VALUES, party, type ProtocolDemo } from '../../../src/protocols/demo.ts';

export const SAMPLE_DEMO_VAULT = '0x5a4e1e0000000000000000000000000000000001';
/** Deposits per day at the demo's scale 1. */
export const SAMPLE_DEMO_PER_DAY = 1000;

export const sampleDemo: ProtocolDemo = {
  events: [
    {
      event: 'deposit',
      network: 'ETH',
      seed: 'sample:deposit:ETH',
      perDay: SAMPLE_DEMO_PER_DAY,
      amount: { scale: 1, alpha: 1.2, decimals: 18 },
      columns: { ...LOG_KEY_VALUES, vault: constant(SAMPLE_DEMO_VAULT), who: party('user'), ...amountColumns('amount') },
    },
  ],
};
