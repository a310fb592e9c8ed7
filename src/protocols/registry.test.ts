/**
 * A protocol's pieces agree: the catalog's EVM datasets are exactly the
 * registry's, and the decoders that a fully configured network plans ask the
 * node for exactly the events the catalog declares for their datasets.
 */
import { toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { chainEndpoints } from '../catalog/index.ts';
import { NETWORKS } from '../catalog/networks.ts';
import { planDatasets } from '../ingest/evm/planDatasets.ts';
import { loadProtocols } from '../reference/protocols.ts';
import { BUILT_IN_PROTOCOLS, createRegistry, protocolRegistry } from './index.ts';
import { native } from './native/index.ts';

const evm = chainEndpoints.filter((e) => e.family === 'evm');

describe('the protocol registry and the catalog', () => {
  it('have the same EVM protocols and datasets, in registry order', () => {
    expect([...new Set(evm.map((e) => e.protocol))]).toEqual(protocolRegistry.names);
    expect(evm).toEqual(protocolRegistry.endpoints);
  });

  it('refuses a protocol registered twice, or one listing another protocol’s dataset', () => {
    expect(() => createRegistry([...BUILT_IN_PROTOCOLS, native])).toThrow(/registered twice/);
    expect(() => createRegistry([{ ...native, name: 'other' }])).toThrow(/lists evm\/native\/transfer/);
  });

  it('every log dataset declares its ABI event, named as its verbose rows name it', () => {
    for (const e of evm.filter((x) => x.protocol !== native.name)) {
      expect(e.abi, e.id).toBeDefined();
      expect(e.eventName).toBe(e.abi!.name);
    }
  });

  it('the planned decoders fill exactly the planned datasets and ask the node for their events', () => {
    const shipped = loadProtocols();
    // Bridge dialects and pool discovery read events beside the datasets' own ABI.
    const extra = new Set(protocolRegistry.protocols.flatMap((p) => p.extraTopics));
    let planned = 0;
    for (const network of Object.keys(NETWORKS)) {
      const plan = planDatasets(network, shipped);
      const filled = plan.decoders.flatMap((d) => d.datasets);
      expect(new Set(filled), network).toEqual(new Set(plan.datasets.filter((d) => !native.endpoints.some((e) => e.id === d))));
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
