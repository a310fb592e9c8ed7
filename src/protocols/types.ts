/**
 * The contract between EVM ingestion and a protocol: what a protocol's
 * decoder is given (logs, blocks, token and pool metadata) and what it gives
 * back (rows by column name, or the engine statements that compute them), and
 * what a protocol declares (its catalog entries, its configuration section).
 * Protocols sit below the store and ingestion, so the engine and the node are
 * reached only through the interfaces here.
 */
import type { ChainEndpoint } from '../catalog/types.ts';
import type { FlatTrace, Hex, RpcLog, RpcReceipt, RpcTransaction, TxTrace } from './evmNode.ts';

/** A stored value: what the store's append takes. */
export type ColumnValue = string | number | bigint | boolean | null | Date;

/** A stored row, by column name. Decoders set every column of their table, null included. */
export type ColumnValues = Record<string, ColumnValue>;

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

/**
 * Pools a decoder needs to know before it decodes their events, found from
 * their factory's creation logs: ingestion reads those logs over the whole
 * range ahead of the main pass (from the factory's first block), decodes them
 * with the decoder and records the range as the dataset's coverage.
 */
export interface PoolDiscovery {
  readonly factory: Hex;
  readonly deployedBlock: number | null;
  /** The creation event's selector. */
  readonly topic0: Hex;
  /** The coverage dataset of the pools found. */
  readonly dataset: string;
}

/** A decoder that turns each log into rows in JS, with viem's ABI codec. */
export interface JsDecoder extends DecoderBase {
  readonly engine?: undefined;
  /** Present when the decoder's pools are discovered ahead of the main pass. */
  readonly discovery?: PoolDiscovery;
  /** Token contracts whose metadata decoding this log needs. */
  tokensOf(log: RpcLog): readonly Hex[];
  /** Whether decoding this log needs its transaction's sender. */
  needsSender(log: RpcLog): boolean;
  decode(log: RpcLog, ctx: DecodeContext): void;
}

/**
 * A decoder whose rows the store computes from the batch's log file
 * (the store's chain.publish): the hot path, for datasets with one row per
 * log of a fixed shape. It fills one dataset, either as ERC-20 transfers
 * (which need token metadata) or as an ABI event of static values
 * described by where each value sits in the log (`event`).
 */
export interface EngineDecoder extends DecoderBase {
  readonly engine: TransferDecoding | EventDecoding;
}

/** An EngineDecoder of ERC-20 transfers. */
export interface TransferDecoder extends DecoderBase {
  readonly engine: TransferDecoding;
}

export interface TransferDecoding {
  /** The event whose logs the store scans before the commit and decodes at it. */
  readonly selector: Hex;
  readonly event?: undefined;
  /** The rows the store decodes from the batch's log file and writes with the batch (the store holds the SQL). */
  transfers(p: EngineInsert): LogFileTransfers;
}

export interface EventDecoding {
  readonly selector: Hex;
  readonly event: LogFileEvent;
}

/** Where one 32-byte value sits in a log: a topic (0 is the selector) or a word of the data. */
export type LogSlot = { readonly topic: number } | { readonly word: number };

/**
 * How one value of a static ABI type is read from its slot, as the ABI
 * decodes it: an address from the word's last 20 bytes, a bool only from 0
 * or 1, bytesN from the first N bytes, an integer from the whole word
 * (two's complement for int). `topic` keeps an indexed dynamic value's topic
 * (its keccak256 hash) as it is.
 */
export type LogFileValue =
  | { readonly type: 'address'; readonly at: LogSlot }
  | { readonly type: 'bool'; readonly at: LogSlot }
  | { readonly type: 'bytes'; readonly size: number; readonly at: LogSlot }
  | { readonly type: 'uint' | 'int'; readonly bits: number; readonly at: LogSlot }
  | { readonly type: 'topic'; readonly topic: number };

/**
 * One ABI event whose rows the engine decodes from a batch's log file: the
 * logs of one of `contracts` with the selector as topic0, exactly `topics`
 * topics and `words` data words, each a row of `table` (its log key,
 * `contract_address` and `columns`). A log whose words are not hex, or whose
 * bool is neither 0 nor 1, is not this event (no row), as for the JS decoder.
 */
export interface LogFileEvent {
  readonly table: string;
  readonly selector: Hex;
  readonly contracts: readonly Hex[];
  readonly topics: number;
  readonly words: number;
  readonly columns: readonly { readonly name: string; readonly value: LogFileValue }[];
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

/**
 * ERC-20 `Transfer` rows the engine decodes itself from the batch's log file
 * (a JSON array of the node's logs): a log with exactly three topics, the
 * first `selector`, and 32 data bytes. Every transfer must find its block's
 * header in the batch and its token in `tokens`; `events` is how many there
 * are, and a different count is an error.
 */
export interface LogFileTransfers {
  readonly table: string;
  readonly file: string;
  readonly selector: string;
  readonly events: number;
  readonly tokens: readonly { readonly address: string; readonly symbol: string; readonly decimals: number }[];
  /** Amounts of 2^124 and above, in decimal digits, computed in JS by block and log index. */
  readonly wide: readonly { readonly block_number: number; readonly log_index: number; readonly value: string }[];
}

export interface EngineInsert {
  readonly network: string;
  /** Block range of the batch; its headers are already in `blocks`. */
  readonly lo: number;
  readonly hi: number;
  /** The batch's log file. */
  readonly file: string;
  readonly batch: EngineBatch;
  token(address: Hex): TokenInfo;
}

/** A catalog dataset of a network that a run does not fill, and why. */
export interface SkippedDataset {
  readonly dataset: string;
  readonly reason: string;
}

export interface ProtocolPlanInput<C> {
  readonly network: string;
  /** The protocol's catalog datasets that list the network. */
  readonly endpoints: readonly ChainEndpoint[];
  /** The protocol's configured contracts on the network (its section of the protocols file), if any. */
  readonly config: C | undefined;
}

/**
 * What ingestion fetched for one block for a BlockDecoder: each transaction's
 * call tree (callTracer), trace_block's flat list, or, without call traces,
 * the receipts of the block's transactions (the block comes with them whole).
 */
export type BlockTraces = { readonly traces: readonly TxTrace[] } | { readonly flat: readonly FlatTrace[] } | { readonly receipts: readonly RpcReceipt[] };

/**
 * A protocol whose rows come from blocks rather than logs (native
 * transfers). It declares what it reads: the call traces of every block with
 * transactions when the node offers a trace method, else every transaction
 * whole and the receipts of the blocks `needsReceipts` picks. Ingestion
 * fetches that for each batch and hands each block to `decodeBlock`.
 */
export interface BlockDecoder {
  readonly protocol: string;
  /** The dataset id it fills. */
  readonly dataset: string;
  /** Coverage of the blocks read with call traces (beside the dataset's own): a run without traces removes it where it writes. */
  readonly tracedCoverage: string;
  /** Without call traces: whether this block's receipts are needed (its transactions were fetched whole). */
  needsReceipts(block: BlockInfo): boolean;
  /** The block's rows, every column set. */
  decodeBlock(block: BlockInfo, source: BlockTraces, ctx: { readonly network: string; readonly nativeSymbol: string }): ColumnValues[];
}

/** What one protocol fills on a network, and with which decoder: of logs, or of blocks (`blockDecoder`). */
export interface ProtocolPlan {
  readonly datasets: readonly string[];
  readonly decoder: ProtocolDecoder | null;
  readonly blockDecoder?: BlockDecoder;
  readonly skipped: readonly SkippedDataset[];
}

/** Each protocol's own planning: which of its datasets a network can fill with what is configured there. */
export type PlanProtocol<C = undefined> = (input: ProtocolPlanInput<C>) => ProtocolPlan;

/** A hex quantity (block number, log index) as a number. */
export const hexNumber = (h: Hex): number => Number.parseInt(h, 16);
