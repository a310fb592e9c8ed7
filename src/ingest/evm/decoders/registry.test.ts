/**
 * A protocol's pieces agree: every built-in EVM protocol of the catalog has a
 * decoder in the registry (and no decoder lacks one), and the decoders that a
 * fully configured network plans ask the node for exactly the events the
 * catalog declares for their datasets.
 */
import { toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { DEX_ABI } from '../../../catalog/evm/dex_v3.ts';
import { STAKING_BRIDGE_ABI } from '../../../catalog/evm/staking.ts';
import { chainEndpoints } from '../../../catalog/index.ts';
import { NETWORKS } from '../../../catalog/networks.ts';
import { loadProtocols } from '../../../reference/protocols.ts';
import { planDatasets } from '../planDatasets.ts';
import { EVM_DECODERS, EVM_PROTOCOLS } from './index.ts';

const evm = chainEndpoints.filter((e) => e.family === 'evm');

describe('the decoder registry and the catalog', () => {
  it('have the same EVM protocols', () => {
    expect([...new Set(evm.map((e) => e.protocol))].sort()).toEqual([...EVM_PROTOCOLS].sort());
    expect(Object.keys(EVM_DECODERS)).toEqual(EVM_PROTOCOLS);
  });

  it('every log dataset declares its ABI event, named as its verbose rows name it', () => {
    for (const e of evm.filter((x) => x.protocol !== 'native')) {
      expect(e.abi, e.id).toBeDefined();
      expect(e.eventName).toBe(e.abi!.name);
    }
  });

  it('the planned decoders fill exactly the planned datasets and ask the node for their events', () => {
    const shipped = loadProtocols();
    // Bridge dialects and pool discovery read events beside the datasets' own ABI.
    const extra = new Set([
      toEventSelector(DEX_ABI.poolCreated),
      ...Object.values(STAKING_BRIDGE_ABI)
        .flatMap((d) => Object.values(d).flat())
        .map((a) => toEventSelector(a)),
    ]);
    let planned = 0;
    for (const network of Object.keys(NETWORKS)) {
      const plan = planDatasets(network, shipped);
      const filled = plan.decoders.flatMap((d) => d.datasets);
      expect(new Set(filled), network).toEqual(new Set(plan.datasets.filter((d) => d !== 'evm/native/transfer')));
      for (const d of plan.decoders) {
        const declared = new Set(evm.filter((e) => d.datasets.includes(e.id)).map((e) => toEventSelector(e.abi!)));
        const bridge = d.protocol === 'staking' && d.datasets.some((id) => id.includes('/l2_'));
        for (const t of declared) if (!bridge) expect(d.topic0, `${network} ${d.protocol}`).toContain(t);
        for (const t of d.topic0) expect(declared.has(t) || extra.has(t), `${network} ${d.protocol} asks for ${t}`).toBe(true);
      }
      planned += plan.datasets.length;
    }
    expect(planned).toBeGreaterThan(50);
  });
});
