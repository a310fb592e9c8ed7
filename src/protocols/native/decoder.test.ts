/** The native-transfer rule over call traces and over plain transactions. */
import { describe, expect, it } from 'vitest';
import type { CallFrame, FlatTrace } from '../evmNode.ts';
import type { BlockInfo } from '../types.ts';
import { nativeBlocks, transferOfTransaction, transfersOfFlatTraces, transfersOfTrace } from './decoder.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C = '0x00000000000000000000000000000000000000cc';
const D = '0x00000000000000000000000000000000000000dd';
const TX = '0x1234' as const;
const v = (n: number) => `0x${n.toString(16)}` as const;

describe('transfersOfTrace', () => {
  it('keeps value-moving CALL, CREATE and SELFDESTRUCT frames in depth-first order; trace_index 0 is the transaction, k the k-th internal transfer', () => {
    const tree: CallFrame = {
      type: 'CALL',
      from: A,
      to: B,
      value: v(10),
      calls: [
        { type: 'CALL', from: B, to: C, value: v(3), calls: [{ type: 'STATICCALL', from: C, to: D }] },
        { type: 'CREATE2', from: B, to: D, value: v(4), calls: [{ type: 'SELFDESTRUCT', from: D, to: A, value: v(4) }] },
      ],
    };
    expect(transfersOfTrace(tree, 2, TX).map((t) => [t.traceIndex, t.from, t.to, t.value])).toEqual([
      [0, A, B, 10n],
      [1, B, C, 3n],
      [2, B, D, 4n],
      [3, D, A, 4n],
    ]);
  });

  it('drops a failed frame and everything under it, but keeps its siblings', () => {
    const tree: CallFrame = {
      type: 'CALL',
      from: A,
      to: B,
      value: v(0),
      calls: [
        { type: 'CALL', from: B, to: C, value: v(5), error: 'execution reverted', calls: [{ type: 'CALL', from: C, to: D, value: v(1) }] },
        { type: 'CALL', from: B, to: D, value: v(2) },
      ],
    };
    expect(transfersOfTrace(tree, 0, TX).map((t) => [t.traceIndex, t.to, t.value])).toEqual([[1, D, 2n]]);
  });

  it('a failed transaction moves nothing', () => {
    const tree: CallFrame = { type: 'CALL', from: A, to: B, value: v(7), error: 'out of gas', calls: [{ type: 'CALL', from: B, to: C, value: v(1) }] };
    expect(transfersOfTrace(tree, 0, TX)).toEqual([]);
  });

  it('a DELEGATECALL or CALLCODE carrying value is not a payment; zero-value calls are not transfers', () => {
    const tree: CallFrame = {
      type: 'CALL',
      from: A,
      to: B,
      value: v(9),
      calls: [
        { type: 'DELEGATECALL', from: B, to: C, value: v(9) },
        { type: 'CALLCODE', from: B, to: C, value: v(1) },
        { type: 'CALL', from: B, to: C, value: v(0) },
      ],
    };
    expect(transfersOfTrace(tree, 0, TX).map((t) => t.traceIndex)).toEqual([0]);
  });
});

describe('transferOfTransaction (no traces)', () => {
  const tx = { hash: TX, from: A, to: B, value: v(5), transactionIndex: v(3) } as const;

  it('a successful transaction with value is one transfer, trace_index 0', () => {
    expect(transferOfTransaction(tx, { transactionHash: TX, transactionIndex: v(3), status: '0x1', contractAddress: null })).toEqual({
      txIndex: 3,
      traceIndex: 0,
      txHash: TX,
      from: A,
      to: B,
      value: 5n,
    });
  });

  it('a failed one is none; a creation pays the new contract; a receipt without status (pre-Byzantium) counts as success', () => {
    expect(transferOfTransaction(tx, { transactionHash: TX, transactionIndex: v(3), status: '0x0', contractAddress: null })).toBeNull();
    expect(transferOfTransaction({ ...tx, to: null }, { transactionHash: TX, transactionIndex: v(3), status: '0x1', contractAddress: C })?.to).toBe(C);
    expect(transferOfTransaction(tx, { transactionHash: TX, transactionIndex: v(3), contractAddress: null })?.value).toBe(5n);
    expect(transferOfTransaction({ ...tx, value: '0x0' }, undefined)).toBeNull();
  });
});

/** The same call tree as trace_block lists it: depth-first, each frame with its path. */
function flatten(f: CallFrame, path: number[] = []): FlatTrace[] {
  const t = f.type.toUpperCase();
  const base = { traceAddress: path, ...(f.error ? { error: f.error } : {}), transactionHash: TX };
  const self: FlatTrace =
    t === 'SELFDESTRUCT'
      ? { ...base, type: 'suicide', action: { address: f.from, refundAddress: f.to!, balance: f.value ?? '0x0' } }
      : t.startsWith('CREATE')
        ? { ...base, type: 'create', action: { from: f.from, value: f.value ?? '0x0' }, result: f.error ? null : { address: f.to! } }
        : { ...base, type: 'call', action: { from: f.from, to: f.to!, value: f.value ?? '0x0', callType: t.toLowerCase() } };
  return [self, ...(f.calls ?? []).flatMap((c, i) => flatten(c, [...path, i]))];
}

describe('transfersOfFlatTraces (trace_block)', () => {
  const trees: CallFrame[] = [
    {
      type: 'CALL',
      from: A,
      to: B,
      value: v(10),
      calls: [
        { type: 'CALL', from: B, to: C, value: v(3), calls: [{ type: 'STATICCALL', from: C, to: D }] },
        { type: 'CREATE2', from: B, to: D, value: v(4), calls: [{ type: 'SELFDESTRUCT', from: D, to: A, value: v(4) }] },
      ],
    },
    {
      type: 'CALL',
      from: A,
      to: B,
      value: v(0),
      calls: [
        { type: 'CALL', from: B, to: C, value: v(5), error: 'Reverted', calls: [{ type: 'CALL', from: C, to: D, value: v(1) }] },
        { type: 'CALL', from: B, to: D, value: v(2) },
      ],
    },
    { type: 'CALL', from: A, to: B, value: v(7), error: 'Reverted', calls: [{ type: 'CALL', from: B, to: C, value: v(1) }] },
    {
      type: 'CALL',
      from: A,
      to: B,
      value: v(9),
      calls: [
        { type: 'DELEGATECALL', from: B, to: C, value: v(9) },
        { type: 'CALLCODE', from: B, to: C, value: v(1) },
      ],
    },
  ];

  it.each(trees.map((t, i) => [i, t] as const))('gives the same transfers, trace indexes included, as the call tree (case %i)', (_i, tree) => {
    expect(transfersOfFlatTraces(flatten(tree), 0, TX)).toEqual(transfersOfTrace(tree, 0, TX));
  });

  it('leaves out the inside of a reverted frame even when the node does not list it, and the numbering does not change', () => {
    const withInside = flatten(trees[1]!);
    const withoutInside = withInside.filter((t) => t.traceAddress.join('.') !== '0.0');
    expect(transfersOfFlatTraces(withoutInside, 0, TX)).toEqual(transfersOfFlatTraces(withInside, 0, TX));
  });
});

describe('nativeBlocks (what native transfers read from blocks)', () => {
  const block = (values: readonly number[]): BlockInfo => ({
    number: 7,
    hash: '0x07',
    parentHash: '0x06',
    timestamp: 1_700_000_000,
    time: new Date(1_700_000_000_000),
    txHashes: values.map((_, i) => v(0x100 + i)),
    txs: values.map((value, i) => ({ hash: v(0x100 + i), from: A, to: B, value: v(value), transactionIndex: v(i) })),
  });

  it('asks for the receipts only of blocks with a payment, and fills its dataset with their rows', () => {
    expect(nativeBlocks.needsReceipts(block([0, 0]))).toBe(false);
    const paying = block([0, 9]);
    expect(nativeBlocks.needsReceipts(paying)).toBe(true);
    const receipts = [0, 1].map((i) => ({ transactionHash: v(0x100 + i), transactionIndex: v(i), status: '0x1' as const, contractAddress: null }));
    const rows = nativeBlocks.decodeBlock(paying, { receipts }, { network: 'ETH', nativeSymbol: 'ETH' });
    expect(rows).toEqual([{ network: 'ETH', block_number: 7, tx_index: 1, trace_index: 0, time: paying.time, tx_hash: v(0x101), token: 'ETH', sender: A, receiver: B, amount_raw: 9n, amount: 9e-18 }]);
    expect(nativeBlocks.dataset).toBe('evm/native/transfer');
    expect(nativeBlocks.tracedCoverage).toBe('evm/native/transfer:traces');
  });
});
