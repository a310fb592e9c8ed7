/**
 * Native-currency transfers, from transaction values and call traces.
 *
 * With traces, each transaction's call tree is walked depth-first. A frame is
 * a transfer when
 * - it moves value > 0,
 * - it is a CALL, CREATE, CREATE2 or SELFDESTRUCT (a DELEGATECALL's value is
 *   the caller's msg.value, not a payment; CALLCODE pays the caller itself;
 *   STATICCALL carries none), and
 * - neither it nor any frame above it failed: a reverted frame undoes every
 *   value move beneath it (Ponder's rule), and a failed transaction moves nothing.
 * The receiver of a CREATE is the new contract; a SELFDESTRUCT pays its beneficiary.
 *
 * `trace_index` is 0 for the transaction's own value and k for the k-th
 * internal transfer of the transaction in depth-first order. Numbering the
 * transfers rather than all frames keeps it the same whichever trace method
 * the node offers (`trace_block` leaves out the inside of reverted frames,
 * callTracer shows it).
 *
 * Without traces only transaction values are seen: a transaction with value
 * > 0 whose receipt says it succeeded (receipts without a status, before
 * Byzantium, count as successes), with trace_index 0.
 *
 * Gas fees, block rewards and consensus-layer withdrawals are not transfers.
 */
import { scaleAmount } from '../../utils/scaleAmount.ts';
import { type CallFrame, type FlatTrace, type Hex, lowerHex, type RpcReceipt, type RpcTransaction } from '../evmNode.ts';
import { nativeTransfer } from './catalog.ts';
import type { BlockDecoder, BlockInfo, BlockTraces, PlanProtocol, ColumnValues } from '../types.ts';

export const NATIVE_DATASET = nativeTransfer.id;
/** Coverage of internal transfers (not an endpoint): these blocks were read with call traces. */
export const NATIVE_TRACES_DATASET = `${NATIVE_DATASET}:traces`;

/** Native transfers come from blocks and traces, not logs: no log decoder, nothing to configure. */
export const planNative: PlanProtocol = ({ endpoints }) => ({ datasets: endpoints.map((e) => e.id), decoder: null, blockDecoder: nativeBlocks, skipped: [] });

const NATIVE_DECIMALS = 18;
const VALUE_TYPES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

export interface NativeTransfer {
  readonly txIndex: number;
  readonly traceIndex: number;
  readonly txHash: Hex;
  readonly from: Hex;
  readonly to: Hex;
  readonly value: bigint;
}

/** The transfers in one transaction's call tree (callTracer), in depth-first order. */
export function transfersOfTrace(frame: CallFrame, txIndex: number, txHash: Hex): NativeTransfer[] {
  const out: NativeTransfer[] = [];
  let internal = 0;
  const walk = (f: CallFrame, failedAbove: boolean, root: boolean) => {
    const failed = failedAbove || (f.error !== undefined && f.error !== null && f.error !== '');
    const value = f.value ? BigInt(f.value) : 0n;
    if (!failed && value > 0n && VALUE_TYPES.has(f.type.toUpperCase()) && f.to) {
      out.push({ txIndex, traceIndex: root ? 0 : ++internal, txHash, from: lowerHex(f.from), to: lowerHex(f.to), value });
    }
    for (const c of f.calls ?? []) walk(c, failed, false);
  };
  walk(frame, false, true);
  return out;
}

/**
 * The transfers in one transaction's flat traces (`trace_block`), which come
 * in depth-first order with each frame's path (`traceAddress`) in the tree.
 */
export function transfersOfFlatTraces(traces: readonly FlatTrace[], txIndex: number, txHash: Hex): NativeTransfer[] {
  const out: NativeTransfer[] = [];
  let internal = 0;
  const failed = new Set<string>();
  for (const t of traces) {
    const path = t.traceAddress;
    const key = path.join('.');
    let bad = !!t.error;
    for (let i = 0; !bad && i < path.length; i++) bad = failed.has(path.slice(0, i).join('.'));
    if (bad) {
      failed.add(key);
      continue;
    }
    const move = flatMove(t);
    if (move && move.value > 0n) {
      out.push({ txIndex, traceIndex: path.length === 0 ? 0 : ++internal, txHash, from: move.from, to: move.to, value: move.value });
    }
  }
  return out;
}

function flatMove(t: FlatTrace): { from: Hex; to: Hex; value: bigint } | null {
  const a = t.action;
  const lower = lowerHex;
  switch (t.type) {
    case 'call':
      return (a.callType ?? 'call') === 'call' && a.from && a.to ? { from: lower(a.from), to: lower(a.to), value: BigInt(a.value ?? '0x0') } : null;
    case 'create':
      return a.from && t.result?.address ? { from: lower(a.from), to: lower(t.result.address), value: BigInt(a.value ?? '0x0') } : null;
    case 'suicide':
      return a.address && a.refundAddress ? { from: lower(a.address), to: lower(a.refundAddress), value: BigInt(a.balance ?? '0x0') } : null;
    default:
      return null; // block and uncle rewards are not transfers
  }
}

/** The transfer a transaction's own value makes, judged by its receipt (no traces). */
export function transferOfTransaction(tx: RpcTransaction, receipt: RpcReceipt | undefined): NativeTransfer | null {
  const value = BigInt(tx.value);
  if (value === 0n) return null;
  if (receipt?.status !== undefined && BigInt(receipt.status) !== 1n) return null;
  const to = tx.to ?? receipt?.contractAddress;
  if (!to) return null;
  return { txIndex: Number(BigInt(tx.transactionIndex)), traceIndex: 0, txHash: tx.hash, from: lowerHex(tx.from), to: lowerHex(to), value };
}

export type { BlockTraces };

/** The hash of the block's `i`th transaction, for a trace that does not carry it. */
function txHashAt(block: BlockInfo, i: number): Hex {
  const hash = block.txHashes[i];
  if (hash === undefined) throw new Error(`block ${block.number} has no transaction ${i}, which a trace names`);
  return hash;
}

export function transfersOfBlock(block: BlockInfo, source: BlockTraces): NativeTransfer[] {
  if ('traces' in source) {
    return source.traces.flatMap((t, i) => transfersOfTrace(t.result, i, t.txHash ?? txHashAt(block, i)));
  }
  if ('flat' in source) {
    const byTx = new Map<number, FlatTrace[]>();
    for (const t of source.flat) {
      if (t.transactionPosition === null || t.transactionPosition === undefined) continue; // rewards
      let list = byTx.get(t.transactionPosition);
      if (!list) {
        list = [];
        byTx.set(t.transactionPosition, list);
      }
      list.push(t);
    }
    return [...byTx].sort(([a], [b]) => a - b).flatMap(([i, traces]) => transfersOfFlatTraces(traces, i, traces[0]?.transactionHash ?? txHashAt(block, i)));
  }
  if (!block.txs) throw new Error(`block ${block.number} was fetched without its transactions`);
  const byHash = new Map(source.receipts.map((r) => [r.transactionHash, r]));
  return block.txs.flatMap((tx) => {
    const t = transferOfTransaction(tx, byHash.get(tx.hash));
    return t ? [t] : [];
  });
}

/** What native transfers read from blocks: call traces, else transaction values judged by the receipts of blocks with a payment. */
export const nativeBlocks: BlockDecoder = {
  protocol: 'native',
  dataset: NATIVE_DATASET,
  tracedCoverage: NATIVE_TRACES_DATASET,
  needsReceipts(block) {
    if (!block.txs) throw new Error(`block ${block.number} was fetched without its transactions`);
    return block.txs.some((t) => BigInt(t.value) > 0n);
  },
  decodeBlock: (block, source, ctx) => transfersOfBlock(block, source).map((t) => nativeRow(ctx.network, ctx.nativeSymbol, block, t)),
};

export function nativeRow(network: string, symbol: string, block: BlockInfo, t: NativeTransfer): ColumnValues {
  return {
    network,
    block_number: block.number,
    tx_index: t.txIndex,
    trace_index: t.traceIndex,
    time: block.time,
    tx_hash: t.txHash,
    token: symbol,
    sender: t.from,
    receiver: t.to,
    amount_raw: t.value,
    amount: scaleAmount(t.value, NATIVE_DECIMALS),
  };
}
