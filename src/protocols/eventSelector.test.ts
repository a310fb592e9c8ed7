import { parseAbiItem, toEventSelector, type AbiEvent } from 'viem';
import { describe, expect, it } from 'vitest';
import { chainEndpoints } from '../catalog/index.ts';
import { eventSelector, eventSignature } from './eventSelector.ts';
import { STAKING_BRIDGE_ABI } from './staking/catalog.ts';

describe('eventSelector', () => {
  it('gives viem’s selector for every event the catalog and the bridge dialects declare', () => {
    const events: AbiEvent[] = [...chainEndpoints.flatMap((e) => (e.abi ? [e.abi] : [])), ...Object.values(STAKING_BRIDGE_ABI).flatMap((d) => Object.values(d).flat())];
    expect(events.length).toBeGreaterThan(20);
    for (const e of events) expect(eventSelector(e), eventSignature(e)).toBe(toEventSelector(e));
  });

  it('spells tuples, nested tuples and arrays of them as the canonical signature does, leaving names and indexed out', () => {
    const event = parseAbiItem('event Filled((address maker, (uint256 a, bytes32 b)[2] legs) order, uint8[] indexed sizes, string note)');
    expect(eventSignature(event)).toBe('Filled((address,(uint256,bytes32)[2]),uint8[],string)');
    expect(eventSelector(event)).toBe(toEventSelector(event));
  });
});
