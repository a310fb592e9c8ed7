/** Which datasets a run fills on a network, and why the others are left out. */
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../protocols/index.ts';
import { nativeTransfer } from '../../protocols/native/catalog.ts';
import { nativeBlocks } from '../../protocols/native/decoder.ts';
import { defineProtocol } from '../../protocols/protocol.ts';
import type { BlockDecoder } from '../../protocols/types.ts';
import { loadProtocols } from '../../reference/protocols.ts';
import { planDatasets } from './planDatasets.ts';

describe('planDatasets', () => {
  const shipped = loadProtocols();

  it('fills every EVM dataset the catalog lists for ETH when its contracts are configured', () => {
    const plan = planDatasets('ETH', shipped);
    expect(plan.datasets).toEqual([
      'evm/erc20/transfer',
      'evm/native/transfer',
      'evm/lending_v3/deposit',
      'evm/lending_v3/withdraw',
      'evm/lending_v3/borrow',
      'evm/lending_v3/repay',
      'evm/lending_v3/flashloan',
      'evm/lending_v3/liquidation',
      'evm/dex_v3/swap',
      'evm/dex_v3/deposit',
      'evm/dex_v3/withdraw',
      'evm/dex_v3/collect',
      'evm/staking/deposit',
      'evm/staking/withdrawal_request',
      'evm/staking/withdrawal_claimed',
    ]);
    expect(plan.native).toBe(true);
    expect(plan.skipped).toEqual([]);
  });

  it('leaves out, with the reason, what --only excludes and what has no configured contract', () => {
    const plan = planDatasets('BERA', shipped);
    expect(plan.datasets).toEqual([]);
    expect(plan.skipped.map((s) => s.reason)).toEqual(Array(4).fill('no dex_v3 factory configured for BERA'));
    const only = planDatasets('ARB', shipped, ['erc20', 'staking']);
    expect(only.datasets).toEqual(['evm/erc20/transfer', 'evm/staking/l2_deposit', 'evm/staking/l2_withdrawal_request']);
    expect(only.skipped.find((s) => s.dataset === 'evm/native/transfer')?.reason).toBe('left out with --only');
  });

  it('plans what a protocol reads from blocks as the block decoder its plan declares, and none when --only leaves it out', () => {
    expect(planDatasets('ETH', shipped).blockDecoders).toEqual([nativeBlocks]);
    const traced: BlockDecoder = { ...nativeBlocks, tracedCoverage: 'evm/native/transfer:other-traces' };
    const registry = createRegistry([
      defineProtocol({
        name: 'native',
        summary: 'native transfers read by another block decoder',
        endpoints: [nativeTransfer],
        plan: ({ endpoints }) => ({ datasets: endpoints.map((e) => e.id), decoder: null, blockDecoder: traced, skipped: [] }),
      }),
    ]);
    const plan = planDatasets('ETH', shipped, undefined, [], registry);
    expect(plan.blockDecoders).toEqual([traced]);
    expect(plan.native).toBe(true);
    const without = planDatasets('ETH', shipped, ['erc20']);
    expect(without.blockDecoders).toEqual([]);
    expect(without.native).toBe(false);
  });
});
