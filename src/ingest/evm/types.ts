/** Shapes shared by the EVM ingestion modules. */
import type { AppendValue } from '../../store/createStore.ts';
import type { RpcTransaction } from '../rpc/actions.ts';
import type { Hex, RpcLog } from '../rpc/getLogs.ts';

/** A stored row, by column name. Decoders set every column of their table, null included. */
export type Row = Record<string, AppendValue>;

/**
 * A stored row as values in the table's column order: the hot path's form
 * (ERC-20 transfers), with no object per row. Built with `columnOrder`, which
 * checks the order against the catalog once.
 */
export type RowValues = AppendValue[];

export interface BlockInfo {
  readonly number: number;
  readonly hash: Hex;
  readonly parentHash: Hex;
  /** Seconds since the epoch, as the chain reports it. */
  readonly timestamp: number;
  readonly time: Date;
  readonly txHashes: readonly Hex[];
  /** Full transactions, when they were fetched. */
  readonly txs: readonly RpcTransaction[] | null;
}

export interface TokenInfo {
  readonly address: Hex;
  /** Registry symbol, else the contract's symbol() uppercased, else the address. */
  readonly symbol: string;
  /** Registry decimals, else the contract's decimals(), else 18 (the API's default for unknown tokens). */
  readonly decimals: number;
}

export interface PoolInfo {
  readonly address: Hex;
  readonly fee: number;
  readonly token0: TokenInfo;
  readonly token1: TokenInfo;
  readonly createdBlock: number | null;
}

export interface LogKey {
  readonly network: string;
  readonly block_number: number;
  readonly log_index: number;
  readonly time: Date;
  readonly tx_hash: Hex;
}

export interface DecodeContext {
  readonly network: string;
  readonly nativeSymbol: string;
  /** Metadata of a token resolved before decoding (see ProtocolDecoder.tokensOf). */
  token(address: Hex): TokenInfo;
  pool(address: Hex): PoolInfo | undefined;
  /** Registers a pool found in this batch (PoolCreated). */
  addPool(pool: PoolInfo): void;
  /** network, block_number, log_index, time and tx_hash of a log. */
  logKey(log: RpcLog): LogKey;
  /** The sender (`from`) of the log's transaction. */
  txSender(log: RpcLog): Hex;
  emit(dataset: string, row: Row | RowValues): void;
}

/** One protocol's log decoding: which logs it reads and what rows they become. */
export interface ProtocolDecoder {
  readonly protocol: string;
  /** Dataset ids (catalog endpoint ids) this decoder fills. */
  readonly datasets: readonly string[];
  readonly topic0: readonly Hex[];
  /** Contracts whose logs it reads; null when any contract may emit them. */
  readonly addresses: readonly Hex[] | null;
  /** Token contracts whose metadata decoding this log needs. */
  tokensOf(log: RpcLog): readonly Hex[];
  /** Whether decoding this log needs its transaction's sender. */
  needsSender(log: RpcLog): boolean;
  decode(log: RpcLog, ctx: DecodeContext): void;
}

/** A hex quantity (block number, log index) as a number. */
export const hexNumber = (h: Hex): number => Number.parseInt(h, 16);
