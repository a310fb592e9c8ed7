/** Shapes shared by the EVM ingestion modules. */
import type { ChainEndpoint } from '../../catalog/types.ts';
import type { Protocols } from '../../reference/protocols.ts';
import type { AppendValue, LogFileTransfers } from '../../store/types.ts';
import type { RpcTransaction } from '../rpc/actions.ts';
import type { Hex, RpcLog } from '../rpc/getLogs.ts';

/** A stored row, by column name. Decoders set every column of their table, null included. */
export type ColumnValues = Record<string, AppendValue>;

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
  emit(dataset: string, row: ColumnValues): void;
}

/** What every protocol decoder declares: which logs it reads, which datasets they fill. */
interface DecoderBase {
  readonly protocol: string;
  /** Dataset ids (catalog endpoint ids) this decoder fills. */
  readonly datasets: readonly string[];
  readonly topic0: readonly Hex[];
  /** Contracts whose logs it reads; null when any contract may emit them. */
  readonly addresses: readonly Hex[] | null;
}

/** A decoder that turns each log into rows in JS, with viem's ABI codec. */
export interface JsDecoder extends DecoderBase {
  readonly engine?: undefined;
  /** Token contracts whose metadata decoding this log needs. */
  tokensOf(log: RpcLog): readonly Hex[];
  /** Whether decoding this log needs its transaction's sender. */
  needsSender(log: RpcLog): boolean;
  decode(log: RpcLog, ctx: DecodeContext): void;
}

/**
 * A decoder whose rows DuckDB computes from the batch's log file in one
 * INSERT … SELECT (logFile.ts): the hot path, for datasets with one row per
 * log of a fixed shape (ERC-20 transfers). It fills one dataset.
 */
export interface EngineDecoder extends DecoderBase {
  readonly engine: {
    /** The event whose logs the store scans before the commit (`LogFileScanSpec.transferSelectors`) and decodes at it. */
    readonly selector: Hex;
    /** The rows the store decodes from the batch's log file and writes with the batch (the store holds the SQL). */
    transfers(p: EngineInsert): LogFileTransfers;
  };
}

export type ProtocolDecoder = JsDecoder | EngineDecoder;

/** An integer the engine cannot compute exactly from a log (above its integer types), computed in JS. */
export interface WideValue {
  readonly block_number: number;
  readonly log_index: number;
  /** Decimal digits. */
  readonly value: string;
}

export interface EngineBatch {
  /** Rows the insert will write. */
  readonly events: number;
  /** Token contracts whose metadata the rows need (resolved before the commit). */
  readonly tokens: readonly Hex[];
  readonly wide: readonly WideValue[];
}

export interface EngineInsert {
  readonly network: string;
  /** Block range of the batch; its headers are already in `blocks`. */
  readonly lo: number;
  readonly hi: number;
  /** The batch's log file (logFile.ts). */
  readonly file: string;
  readonly batch: EngineBatch;
  token(address: Hex): TokenInfo;
}

/** A catalog dataset of a network that a run does not fill, and why. */
export interface SkippedDataset {
  readonly dataset: string;
  readonly reason: string;
}

export interface ProtocolPlanInput {
  readonly network: string;
  /** The protocol's catalog datasets that list the network. */
  readonly endpoints: readonly ChainEndpoint[];
  /** The contract addresses configured for every protocol. */
  readonly protocols: Protocols;
}

/** What one protocol fills on a network, and with which decoder (none: native transfers come from blocks, not logs). */
export interface ProtocolPlan {
  readonly datasets: readonly string[];
  readonly decoder: ProtocolDecoder | null;
  readonly skipped: readonly SkippedDataset[];
}

/** Each protocol's own planning: which of its datasets a network can fill with what is configured there. */
export type PlanProtocol = (input: ProtocolPlanInput) => ProtocolPlan;

/** A hex quantity (block number, log index) as a number. */
export const hexNumber = (h: Hex): number => Number.parseInt(h, 16);
