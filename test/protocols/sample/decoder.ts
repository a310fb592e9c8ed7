/** Deposits of the vaults configured for the network; without any, nothing. */
import { createEventDecoder } from '../../../src/protocols/eventDecoder.ts';
import type { Hex } from '../../../src/protocols/evmNode.ts';
import type { JsDecoder, PlanProtocol } from '../../../src/protocols/types.ts';
import { scaleAmount } from '../../../src/utils/scaleAmount.ts';
import { SAMPLE_ABI, sampleDeposit } from './catalog.ts';

const deposited = createEventDecoder(SAMPLE_ABI.deposit);

export const planSample: PlanProtocol<readonly Hex[]> = ({ network, endpoints, config }) =>
  config && config.length > 0
    ? { datasets: endpoints.map((e) => e.id), decoder: createSampleDecoder(config), skipped: [] }
    : { datasets: [], decoder: null, skipped: endpoints.map((e) => ({ dataset: e.id, reason: `no sample vault configured for ${network}` })) };

export function createSampleDecoder(vaults: readonly Hex[]): JsDecoder {
  return {
    protocol: 'sample',
    datasets: [sampleDeposit.id],
    topic0: [deposited.selector],
    addresses: vaults,
    tokensOf: () => [],
    needsSender: () => false,
    decode(log, ctx) {
      const a = deposited.decode(log);
      if (!a) return;
      ctx.emit(sampleDeposit.id, { ...ctx.logKey(log), vault: log.address.toLowerCase(), who: a.who.toLowerCase(), amount_raw: a.amount, amount: scaleAmount(a.amount, 18) });
    },
  };
}
