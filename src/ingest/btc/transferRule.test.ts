import { describe, expect, it } from 'vitest';
import { transfersOf, type UtxoTransaction } from './transferRule.ts';

const A = 'bc1qa0000000000000000000000000000000000000';
const B = 'bc1qb0000000000000000000000000000000000000';
const C = '3Cbq7aT1tY8kMxWLbitaG7yT6bPbKChq64';
const D = '1BoatSLRHtKNngkdXEeobR76b53LETtpyT';

describe('bitcoin transfer rule', () => {
  it('drops the change output that returns to the funding address', () => {
    const tx: UtxoTransaction = {
      txid: 't1',
      coinbase: false,
      inputs: [{ address: A, value: 100_000n }],
      outputs: [
        { vout: 0, address: B, value: 60_000n },
        { vout: 1, address: A, value: 39_000n },
      ],
    };
    expect(transfersOf(tx)).toEqual([{ txid: 't1', vout: 0, sender: A, receiver: B, value: 60_000n }]);
  });

  it('names the funding address with the largest total value as sender when there are several inputs', () => {
    const tx: UtxoTransaction = {
      txid: 't2',
      coinbase: false,
      inputs: [
        { address: A, value: 50_000n },
        { address: B, value: 70_000n },
        { address: A, value: 30_000n },
      ],
      outputs: [
        { vout: 0, address: C, value: 100_000n },
        { vout: 1, address: B, value: 49_000n },
      ],
    };
    // A funds 80,000 in total, more than B's 70,000; B's output is change.
    expect(transfersOf(tx)).toEqual([{ txid: 't2', vout: 0, sender: A, receiver: C, value: 100_000n }]);
  });

  it('gives coinbase outputs no sender', () => {
    const tx: UtxoTransaction = {
      txid: 't3',
      coinbase: true,
      inputs: [],
      outputs: [
        { vout: 0, address: D, value: 312_500_000n },
        { vout: 1, address: null, value: 0n },
      ],
    };
    expect(transfersOf(tx)).toEqual([{ txid: 't3', vout: 0, sender: null, receiver: D, value: 312_500_000n }]);
  });

  it('skips outputs without an address and zero-value outputs', () => {
    const tx: UtxoTransaction = {
      txid: 't4',
      coinbase: false,
      inputs: [{ address: A, value: 10_000n }],
      outputs: [
        { vout: 0, address: null, value: 0n },
        { vout: 1, address: B, value: 0n },
        { vout: 2, address: C, value: 9_000n },
      ],
    };
    expect(transfersOf(tx).map((t) => t.vout)).toEqual([2]);
  });
  it('names no sender when no input has an address, yet every addressed output is a transfer', () => {
    const tx: UtxoTransaction = {
      txid: 't5',
      coinbase: false,
      inputs: [
        { address: null, value: 50_000n },
        { address: null, value: 10_000n },
      ],
      outputs: [
        { vout: 0, address: A, value: 40_000n },
        { vout: 1, address: B, value: 19_000n },
      ],
    };
    expect(transfersOf(tx)).toEqual([
      { txid: 't5', vout: 0, sender: null, receiver: A, value: 40_000n },
      { txid: 't5', vout: 1, sender: null, receiver: B, value: 19_000n },
    ]);
  });

  it('chooses the sender among inputs with an address only, however large an input without one is', () => {
    const tx: UtxoTransaction = {
      txid: 't6',
      coinbase: false,
      inputs: [
        { address: null, value: 500_000n },
        { address: A, value: 100_000n },
      ],
      outputs: [{ vout: 0, address: B, value: 590_000n }],
    };
    expect(transfersOf(tx)).toEqual([{ txid: 't6', vout: 0, sender: A, receiver: B, value: 590_000n }]);
  });
});
