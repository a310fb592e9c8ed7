/**
 * What an EVM node answers, as protocol decoders read it: logs, transactions,
 * receipts and call traces. The RPC client (ingest/rpc/) fetches these shapes;
 * they are defined here, below ingestion, because every protocol's decoder
 * reads them.
 */
export type Hex = `0x${string}`;

/** `h` in lowercase, still a Hex: addresses and hashes are compared and stored lowercase. */
export const lowerHex = (h: Hex): Hex => `0x${h.slice(2).toLowerCase()}`;

export interface RpcLog {
  readonly address: Hex;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly blockNumber: Hex;
  readonly blockHash: Hex;
  readonly transactionHash: Hex;
  readonly transactionIndex: Hex;
  readonly logIndex: Hex;
  readonly removed?: boolean;
}

export interface RpcTransaction {
  readonly hash: Hex;
  readonly from: Hex;
  readonly to: Hex | null;
  readonly value: Hex;
  readonly transactionIndex: Hex;
}

export interface RpcReceipt {
  readonly transactionHash: Hex;
  readonly transactionIndex: Hex;
  readonly status?: Hex;
  readonly contractAddress: Hex | null;
  readonly logs?: readonly RpcLog[];
}

/** A callTracer frame. */
export interface CallFrame {
  readonly type: string;
  readonly from: Hex;
  readonly to?: Hex;
  readonly value?: Hex;
  readonly error?: string;
  readonly calls?: readonly CallFrame[];
}

export interface TxTrace {
  readonly txHash?: Hex;
  readonly result: CallFrame;
}

/** One entry of `trace_block` (Parity/OpenEthereum style, served by Erigon, Nethermind, Reth and anvil). */
export interface FlatTrace {
  readonly type: 'call' | 'create' | 'suicide' | 'reward' | string;
  readonly action: {
    readonly from?: Hex;
    readonly to?: Hex;
    readonly value?: Hex;
    readonly callType?: string;
    /** suicide */
    readonly address?: Hex;
    readonly refundAddress?: Hex;
    readonly balance?: Hex;
  };
  readonly result?: { readonly address?: Hex } | null;
  readonly error?: string;
  readonly traceAddress: readonly number[];
  readonly transactionHash?: Hex | null;
  readonly transactionPosition?: number | null;
  readonly blockHash?: Hex;
}
