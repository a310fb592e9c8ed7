/** Native-currency transfers: read from blocks, receipts and call traces, not logs (ingestion fetches them). */
import { defineProtocol } from '../protocol.ts';
import { nativeTransfer } from './catalog.ts';
import { NATIVE_TRACES_DATASET, planNative } from './decoder.ts';
import { nativeDemo } from './demo.ts';

export const native = defineProtocol({
  name: 'native',
  summary: 'native-currency transfers (transaction values and internal calls)',
  endpoints: [nativeTransfer],
  plan: planNative,
  extraCoverage: [NATIVE_TRACES_DATASET],
  demo: nativeDemo,
});
