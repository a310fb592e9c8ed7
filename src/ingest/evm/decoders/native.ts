/**
 * Native-currency transfers, from transaction values and call traces.
 *
 * With traces (debug_traceBlockByHash, callTracer), each transaction's call
 * tree is walked depth-first; `trace_index` is a frame's position in that walk
 * (0 is the transaction itself). A frame is a transfer when
 * - it moves value > 0,
 * - it is a CALL, CREATE, CREATE2 or SELFDESTRUCT (a DELEGATECALL's value is
 *   the caller's msg.value, not a payment; CALLCODE pays the caller itself;
 *   STATICCALL carries none), and
 * - neither it nor any frame above it failed: a reverted frame undoes every
 *   value move beneath it (Ponder's rule), and a failed transaction moves nothing.
 * The receiver of a CREATE is the new contract.
 *
 * Without traces only transaction values are seen: a transaction with value
 * > 0 whose receipt says it succeeded (receipts without a status, before
 * Byzantium, count as successes), with trace_index 0.
 *
 * Gas fees, block rewards and consensus-layer withdrawals are not transfers.
 */
import { scaleAmount } from '../../../utils/scaleAmount.ts';
import type { CallFrame, RpcReceipt, RpcTransaction, TxTrace } from '../../rpc/actions.ts';
import type { Hex } from '../../rpc/getLogs.ts';
import type { BlockInfo, Row } from '../types.ts';

export const NATIVE_DATASET = 'evm/native/transfer';
/** Coverage of internal transfers (not an endpoint): these blocks were read with call traces. */
export const NATIVE_TRACES_DATASET = 'evm/native/transfer:traces';

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

/** The transfers in one transaction's call tree, in depth-first order. */
export function transfersOfTrace(frame: CallFrame, txIndex: number, txHash: Hex): NativeTransfer[] {
  const out: NativeTransfer[] = [];
  let index = 0;
  const walk = (f: CallFrame, failedAbove: boolean) => {
    const i = index++;
    const failed = failedAbove || (f.error !== undefined && f.error !== null && f.error !== '');
    const value = f.value ? BigInt(f.value) : 0n;
    if (!failed && value > 0n && VALUE_TYPES.has(f.type.toUpperCase()) && f.to) {
      out.push({ txIndex, traceIndex: i, txHash, from: f.from.toLowerCase() as Hex, to: f.to.toLowerCase() as Hex, value });
    }
    for (const c of f.calls ?? []) walk(c, failed);
  };
  walk(frame, false);
  return out;
}

/** The transfer a transaction's own value makes, judged by its receipt (no traces). */
export function transferOfTransaction(tx: RpcTransaction, receipt: RpcReceipt | undefined): NativeTransfer | null {
  const value = BigInt(tx.value);
  if (value === 0n) return null;
  if (receipt?.status !== undefined && BigInt(receipt.status) !== 1n) return null;
  const to = tx.to ?? receipt?.contractAddress;
  if (!to) return null;
  return { txIndex: Number(BigInt(tx.transactionIndex)), traceIndex: 0, txHash: tx.hash, from: tx.from.toLowerCase() as Hex, to: to.toLowerCase() as Hex, value };
}

export function transfersOfBlock(block: BlockInfo, source: { traces: readonly TxTrace[] } | { receipts: readonly RpcReceipt[] }): NativeTransfer[] {
  if ('traces' in source) {
    return source.traces.flatMap((t, i) => transfersOfTrace(t.result, i, t.txHash ?? block.txHashes[i]!));
  }
  if (!block.txs) throw new Error(`block ${block.number} was fetched without its transactions`);
  const byHash = new Map(source.receipts.map((r) => [r.transactionHash, r]));
  return block.txs.flatMap((tx) => {
    const t = transferOfTransaction(tx, byHash.get(tx.hash));
    return t ? [t] : [];
  });
}

export function nativeRow(network: string, symbol: string, block: BlockInfo, t: NativeTransfer): Row {
  return {
    network, block_number: block.number, tx_index: t.txIndex, trace_index: t.traceIndex, time: block.time, tx_hash: t.txHash,
    token: symbol, sender: t.from, receiver: t.to, amount_raw: t.value, amount: scaleAmount(t.value, NATIVE_DECIMALS),
  };
}
