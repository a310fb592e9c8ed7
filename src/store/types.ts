/**
 * The store's contract (docs/storage.md, "The engine boundary"): what every
 * engine offers and everything outside src/store/ holds. It names no engine's
 * types: values crossing it are plain JS values, queries are engine-neutral
 * descriptions (./query.ts), and writes are named operations each engine
 * implements in its own folder (./duckdb/, ./clickhouse/). Which engine
 * answers is decided once, when the store opens (./openStore.ts).
 */
import type { Readable } from 'node:stream';
import type { Format, TableDef } from '../catalog/types.ts';
import type { ExportLane, ExportThrottle } from './exportLanes.ts';
import type { ChargeLedger } from './ledger.ts';
import type { LogFileEvent, LogFileTransfers } from '../protocols/types.ts';
import type { BoundQuery } from './query.ts';
import type { CustomDataset } from '../catalog/custom/declaration.ts';
import type { DemoPlan } from './demoPlan.ts';
import type { Interval } from './intervals.ts';

export type { LogFileEvent, LogFileTransfers };

/** An ABI event's rows the engine decodes from a batch's log file at the commit; `events` is how many the scan counted. */
export interface LogFileEventRows {
  readonly event: LogFileEvent;
  readonly file: string;
  readonly events: number;
}

/** A value bound to a named parameter; both engines take each of these as is. */
export type StoreValue = string | number | bigint | boolean | null;
export type SqlParams = Record<string, StoreValue>;
/** A column value the engine appends as is (src/store/duckdb/types.ts, `Tx.append`). */
export type AppendValue = StoreValue | Date;
export type Row = Record<string, unknown>;

/** How an export is admitted: the lane it waits in, and whether its result is expected to be small. */
export interface ExportOptions {
  readonly lane?: ExportLane;
  /**
   * The planner expects few rows (src/query/lane.ts): an engine may then build
   * a JSON result in one piece instead of streaming it (README, "Small results
   * in one piece"). The bytes are the same either way.
   */
  readonly small?: boolean;
  /** A file export that gives way to interactive work (DuckDB; ClickHouse writes at full speed). */
  readonly throttle?: ExportThrottle;
  /**
   * A file export's bytes, every piece in order, as they pass through this
   * process on their way to the file, so that the caller can hash the file
   * without reading it back. An engine that writes the file itself (DuckDB's
   * COPY to a file, without a throttle) never calls it.
   */
  readonly tap?: (piece: Uint8Array) => void;
}

export interface CopyStream {
  /** The encoded bytes, readable once the engine produces them. */
  readonly stream: Readable;
  /** Resolves with the number of rows written when the engine is done. */
  readonly done: Promise<number>;
  /** Stops the query and releases everything. */
  cancel(): void;
  /**
   * The same bytes, finished, when the engine handed the result back in one
   * piece (a small JSON result; README, "Small results in one piece").
   */
  readonly whole?: Buffer;
}

export interface Store {
  /** Which engine answers (docs/storage.md); store functions with SQL of their own choose their dialect by it. */
  readonly engine: 'duckdb' | 'clickhouse';
  readonly dataDir: string | null;
  readonly readOnly: boolean;
  /**
   * The engine's text and parameter values for an engine-neutral data query
   * answered in `format`, to pass to `copyToStream`/`copyToFile` with that
   * format (an engine may shape its columns per format; DuckDB does not).
   */
  render(query: BoundQuery, format: Format): { sql: string; params: SqlParams };
  /**
   * The answer of a planner's lookup, reused while the store has not changed
   * (src/store/lookupCache.ts); `key` must name the lookup and all its
   * arguments. Engines without a cache compute each time.
   */
  lookup?<T>(key: string, compute: () => Promise<T>): Promise<T>;
  copyToStream(sql: string, params: SqlParams, format: Format, opts?: ExportOptions): Promise<CopyStream>;
  copyToFile(sql: string, params: SqlParams, format: Format, file: string, opts?: ExportOptions): Promise<number>;
  /**
   * A read-only view of the store as of now, on its own connection inside one
   * transaction: every read through it (lookups, coverage checks, the export)
   * sees the same committed state, whatever ingestion commits meanwhile. Its
   * `close()` ends it; it cannot write.
   */
  snapshot(): Promise<Store>;
  /**
   * Where charges are made durable (src/store/ledger.ts): a writable DuckDB
   * store's journal, or ClickHouse's grouped INSERT; absent on read-only
   * DuckDB stores and their snapshots.
   */
  readonly ledger?: ChargeLedger;
  /** API keys (src/metering/keys.ts decides what a key is; the store keeps their hashes). */
  readonly keys: KeyOperations;
  /** What the usage ledger holds (`ledger` writes it; src/metering reads it for balances and reports). */
  readonly usage: UsageOperations;
  /** Ingestion's writes of chain data (a batch of blocks published whole, a reorg rolled back) and its log file reads. */
  readonly chain: ChainOperations;
  /** Label namespaces, a key's own address labels (src/reference/userLabels.ts checks them). */
  readonly labelNamespaces: LabelNamespaceOperations;
  /** The token registry, address labels and USD prices (src/reference/ decides what goes in). */
  readonly reference: ReferenceOperations;
  /** Export jobs and their finished partitions (src/server/exports/ runs them). */
  readonly exports: ExportOperations;
  /** Venue ingestion's writes: a unit of a token's rows over a time range, replaced and covered whole. */
  readonly venues: VenueOperations;
  /** What ingestion and streams read back of a network's chain: stored blocks, the chain log, tokens and pools. */
  readonly chainReads: ChainReadOperations;
  /** Coverage reads (src/store/coverage.ts says what each is for) and the chain state ingestion records. */
  readonly coverage: CoverageOperations;
  /** Lookups in the token registry and pools for the planners (src/store/registry.ts says what each is for). */
  readonly registry: RegistryOperations;
  /** What `chainq verify` reads and records (src/store/verification.ts says what each is for). */
  readonly verification: VerificationOperations;
  /** The declarations of operator-defined datasets (src/store/customDatasets.ts checks a declaration before it is saved). */
  readonly customDatasets: CustomDatasetOperations;
  /** Whole-store operations for operators (src/store/maintenance.ts). */
  readonly maintenance: MaintenanceOperations;
  close(): Promise<void>;
}

export type ExportStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** An export job as stored: the request it runs and where it stands. */
export interface StoredExport {
  readonly id: string;
  readonly keyId: string;
  readonly status: ExportStatus;
  readonly endpoint: string;
  /** The endpoint's parameters as the client sent them, JSON text. */
  readonly params: string;
  readonly format: 'parquet' | 'csv';
  readonly compression: 'gzip' | null;
  /** Partitions by block numbers (inclusive bounds) or by time (epoch ms, end exclusive). */
  readonly partitionBy: 'blocks' | 'time';
  readonly rangeStart: number;
  readonly rangeEnd: number;
  /** Blocks, or milliseconds, per partition. */
  readonly partitionSize: number;
  readonly partitions: number;
  readonly cost: number;
  /** The files' columns, JSON text of `[{name, type}]`; empty until the first partition ran. */
  readonly columns: string;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  readonly expiresAt: Date | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  /** Its files were removed (expired, or deleted by its owner); the record stays. */
  readonly filesRemoved: boolean;
}

/** One finished partition of an export: its file, complete under its final name, and what it was charged. */
export interface StoredExportPart {
  readonly exportId: string;
  readonly index: number;
  readonly name: string;
  readonly rangeStart: number;
  readonly rangeEnd: number;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly firstBlockHash: string | null;
  readonly lastBlockHash: string | null;
  readonly charge: number;
  /** The object's URL when the file was delivered to a bucket, else null. */
  readonly url: string | null;
}

/** A column of a query's result, with the engine's type name. */
export interface ResultColumn {
  readonly name: string;
  readonly type: string;
}

export interface ExportOperations {
  /** Records the job, replacing what was stored under its id. */
  save(job: StoredExport): Promise<void>;
  get(id: string): Promise<StoredExport | null>;
  /** A key's exports, newest first. */
  list(keyId: string): Promise<StoredExport[]>;
  /** Every export, newest first. */
  all(): Promise<StoredExport[]>;
  /** Records a finished partition (once per index: a partition recorded again replaces the first record). */
  addPart(part: StoredExportPart): Promise<void>;
  /** An export's finished partitions, by index. */
  parts(exportId: string): Promise<StoredExportPart[]>;
  /** The columns (names, engine types) a data query answers, without running it. */
  describe(sql: string, params: SqlParams): Promise<ResultColumn[]>;
}

/** An API key as stored: its hash, never the key. */
export interface StoredKey {
  readonly id: string;
  readonly keyHash: string;
  readonly prefix: string;
  readonly plan: string;
  readonly name: string | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** A change to one key: revoked now, or moved to another plan. */
export type KeyChange = { readonly revoke: true } | { readonly plan: string };

export interface KeyOperations {
  insert(key: StoredKey): Promise<void>;
  /** The key that is not revoked and has this hash, if any. */
  activeByHash(hash: string): Promise<StoredKey | null>;
  /** Every key, revoked ones included, by creation time then id. */
  all(): Promise<StoredKey[]>;
  /** How many keys have this id or visible prefix (only those not revoked when `active`). */
  count(idOrPrefix: string, active: boolean): Promise<number>;
  /** Applies `change` to the keys of this id or visible prefix (those not revoked, for a revocation). */
  update(idOrPrefix: string, change: KeyChange): Promise<void>;
}

/** Charges of one key and month, summed. */
export interface UsageTotal {
  readonly keyId: string;
  readonly period: string;
  readonly requests: number;
  readonly blocks: number;
}

/** One stored charge; times in epoch ms. */
export interface StoredCharge {
  readonly requestId: string;
  readonly cost: number;
  readonly endpoint: string | null;
  readonly admittedAt: number;
  readonly chargedAt: number;
}

/**
 * Reads of the usage ledger. Totals and listings include every charge the
 * ledger has made durable (an engine that applies its journal in the
 * background applies it first); `usedInPeriod` reads the table as it is,
 * being read once per key and month before the counters take over.
 */
export interface UsageOperations {
  /** The sum of a key's charges in a period (0 when none). */
  usedInPeriod(keyId: string, period: string): Promise<number>;
  /** Requests and cost per key and period, by period then key, narrowed by `filter`. */
  totals(filter: { keyId?: string | undefined; period?: string | undefined }): Promise<UsageTotal[]>;
  /** A key's latest charges of a period, newest first. */
  recent(keyId: string, period: string, limit: number): Promise<StoredCharge[]>;
  /** Whether the ledger holds a charge under this request id (a charge made durable before a crash included). */
  charged(requestId: string): Promise<boolean>;
}

/** A namespace's CSV columns, as uploaded and as listed back (`csvExport`). */
export const LABEL_CSV_COLUMNS = ['address', 'label', 'category', 'network'] as const;

/** One label of a namespace: the stored address, label, lower-case category, upper-case network or null (every network). */
export type LabelRow = readonly [address: string, label: string, category: string, network: string | null];

export interface NamespaceInfo {
  readonly namespace: string;
  readonly rows: number;
  /** ISO 8601 with milliseconds, UTC. */
  readonly updated_at: string;
}

export interface LabelNamespaceOperations {
  /**
   * Replaces (or creates) a key's namespace with `rows`, seen whole or not at
   * all by readers; null, with nothing written, when the namespace is new
   * and the key already holds `maxNamespaces`.
   */
  put(keyId: string, namespace: string, rows: readonly LabelRow[], maxNamespaces: number): Promise<{ created: boolean; info: NamespaceInfo } | null>;
  /** The key's namespaces, by name. */
  list(keyId: string): Promise<NamespaceInfo[]>;
  exists(keyId: string, namespace: string): Promise<boolean>;
  /** Removes a key's namespace and its labels; false when it had none of that name. */
  delete(keyId: string, namespace: string): Promise<boolean>;
  /**
   * The statement listing a namespace as the CSV it was uploaded as
   * (LABEL_CSV_COLUMNS, in upload order), for `copyToStream` in format csv.
   */
  csvExport(keyId: string, namespace: string): { sql: string; params: SqlParams };
}

/** One covered interval of a dataset and scope, as the coverage report shows it. */
export interface CoverageRow {
  readonly dataset: string;
  readonly scope: string;
  readonly lo: number;
  readonly hi: number;
  /** Time of the first and last stored block inside the interval (chains with block headers), else null. */
  readonly timeLo: Date | null;
  readonly timeHi: Date | null;
  readonly advancedAt: Date | null;
  readonly confirmations: number | null;
}

/** A token deployment of the registry, as symbol lookups answer it. */
export interface TokenDeployment {
  readonly symbol: string;
  readonly address: string;
  readonly decimals: number;
}

/** A pool of the registry. */
export interface PoolRow {
  readonly pool_address: string;
  readonly token0: string;
  readonly token1: string;
  readonly fee: number;
}

export interface TokenListing {
  readonly symbol: string;
  readonly name: string;
  readonly aliases: readonly string[];
  /** By network code, in network order. */
  readonly deployments: readonly { readonly network: string; readonly address: string; readonly decimals: number }[];
}

/** How chain symbols are priced from the venue markets' candles (src/reference/prices.ts holds the rules). */
export interface PriceRules {
  /** Chain symbol → the market symbol it is priced from, 1:1. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Stablecoins counted as 1.0 USD when the store has no market of their own. */
  readonly pegged: readonly string[];
}

export interface PriceRefresh {
  /** Symbols with a price, by source. */
  readonly markets: number;
  readonly derived: number;
  readonly pegged: number;
  readonly rows: number;
}

export interface ReferenceOperations {
  /**
   * Imports a token CSV (symbol,name,aliases(|-separated),network,address,decimals);
   * rows replace earlier rows of the same symbol, network and address. Returns rows imported.
   */
  importTokens(file: string): Promise<number>;
  /** Imports a label CSV (address,label,category,network; network empty = every EVM network); returns rows imported. */
  importLabels(file: string): Promise<number>;
  /** Rows of the token registry or of the address labels. */
  count(table: 'tokens' | 'labels'): Promise<number>;
  /** Replaces the `prices` table with prices derived from the store's candles and staking data by `rules`. */
  refreshPrices(rules: PriceRules): Promise<PriceRefresh>;
}

/**
 * The steps of a publish on an engine without transactions (docs/storage.md,
 * "Writes without transactions"), after each of which a test may simulate a crash.
 */
export type PublishStep = 'uncovered' | 'deleted' | 'inserted';

/** One row for a table, columns in table order. */
export type TableRow = readonly AppendValue[];

/** A stored block header. `time` is a Date or 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC). */
export interface ChainBlock {
  readonly number: number;
  readonly time: Date | string;
  readonly hash: string;
  readonly parentHash: string;
}

/** Rows of one table (with `network` and `block_number` columns) for a batch's blocks. */
export interface BatchRows {
  readonly table: string;
  readonly rows: readonly TableRow[];
  /**
   * The table holds nothing of the batch's blocks (the range was never
   * covered), so its old rows need no delete.
   */
  readonly fresh?: boolean;
}

/** A token's metadata as the contract answered it, cached per network. */
export interface TokenMeta {
  readonly address: string;
  /** null where the contract did not answer (the cache remembers that it did not). */
  readonly symbol: string | null;
  readonly decimals: number | null;
}

/**
 * Everything one batch of a network's blocks lo..hi writes, made visible
 * whole (docs/storage.md, "The engine boundary"): what the store held of
 * those blocks in these tables is replaced, coverage gains [lo, hi] for
 * `covers` and loses it for `uncovers`.
 */
export interface ChainBatch {
  readonly network: string;
  readonly lo: number;
  readonly hi: number;
  /** Every block lo..hi, replacing the stored headers of the range; absent: the headers are not touched (a pool scan). */
  readonly blocks?: readonly ChainBlock[];
  /**
   * The hash block lo's parent has on the node: when the store holds block
   * lo − 1 with another hash, nothing is written and ChainBreakError (./chainBreak.ts) is thrown.
   */
  readonly parentHash?: string;
  readonly tables: readonly BatchRows[];
  /** Rows the engine decodes from a log file, after the headers they take their time from. */
  readonly transfers?: readonly LogFileTransfers[];
  /** ABI events' rows the engine decodes from a log file, after the headers. */
  readonly events?: readonly LogFileEventRows[];
  /** Dex pools created in lo..hi (rows of `pools`, replacing those created there); absent: pools are not touched. */
  readonly pools?: readonly TableRow[];
  /** Token metadata learnt by this batch, replacing the cached entries of those addresses. */
  readonly tokenCache?: readonly TokenMeta[];
  readonly covers: readonly string[];
  readonly uncovers: readonly string[];
  /** Tables of operator-defined datasets among `tables`, which an engine writing through a scratch store must create there. */
  readonly definedTables?: readonly TableDef[];
}

/** A dataset and the table holding its rows (with `network` and `block_number` columns). */
export interface ChainDataset {
  readonly id: string;
  readonly table: string;
}

/** What a reorg takes away above the common ancestor. */
export interface ChainRollback {
  readonly network: string;
  readonly ancestor: number;
  /** The highest block whose rows and coverage go (an engine may take everything above the ancestor). */
  readonly through: number;
  /** Their rows and coverage go, and the network's block headers with them. */
  readonly datasets: readonly ChainDataset[];
  /** Datasets whose coverage alone goes (their rows are in a table above, or in `pools`). */
  readonly coverageOnly: readonly string[];
  /** Pools created above the ancestor go too. */
  readonly pools: boolean;
}

/** What ingestion asks of a batch's log file (a JSON array of the node's logs) before its commit. */
export interface LogFileScanSpec {
  /** Topic0 of the logs handed back whole, to be decoded in JS. */
  readonly jsTopics: readonly string[];
  /** Selectors of ERC-20-shaped transfers the engine decodes itself at the commit (LogFileTransfers). */
  readonly transferSelectors: readonly string[];
  /** ABI events the engine decodes itself at the commit: each one's rows are counted. */
  readonly events?: readonly LogFileEvent[];
}

/** A log as the node answered it, every field its text. */
export interface LogRecord {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: string;
  readonly blockHash: string;
  readonly transactionHash: string;
  readonly transactionIndex: string;
  readonly logIndex: string;
}

/** What the commit of one selector's transfers needs (LogFileTransfers without what JS adds). */
export interface TransferScan {
  readonly events: number;
  /** Token contracts, lower case. */
  readonly tokens: readonly string[];
  readonly wide: LogFileTransfers['wide'];
}

export interface LogFileScan {
  /** Each block's hash, as its logs name it (lower case). */
  readonly blockHashes: ReadonlyMap<number, string>;
  /** Each block's log indices. */
  readonly logIndices: ReadonlyMap<number, readonly number[]>;
  /** Why the file cannot be one version of the chain (a removed log, two hashes of a block), or null. */
  readonly conflict: string | null;
  /** The logs of `jsTopics`, in block and log order. */
  readonly jsLogs: readonly LogRecord[];
  /** By selector. */
  readonly transfers: ReadonlyMap<string, TransferScan>;
  /** Rows of each of `events`, by table. */
  readonly events: ReadonlyMap<string, number>;
}

export interface ChainOperations {
  /** Writes a batch atomically (DuckDB: one transaction; ClickHouse: the publishing order of docs/storage.md). */
  publish(batch: ChainBatch): Promise<void>;
  /** Removes what a reorg invalidated, atomically as `publish`. */
  rollback(r: ChainRollback): Promise<void>;
  /** Reads a batch's log file (on ClickHouse, with the scratch DuckDB that decodes batches). */
  scanLogFile(file: string, spec: LogFileScanSpec): Promise<LogFileScan>;
}

/**
 * A token's rows of one venue table over a time range, replaced whole with
 * the range's coverage (docs/storage.md, "Venue writes"). Times are epoch
 * milliseconds, inclusive.
 */
export interface VenuePeriod {
  /** The token as stored (upper-case). */
  readonly token: string;
  readonly table: string;
  readonly lo: number;
  readonly hi: number;
  /** The coverage datasets of the table's rows. */
  readonly datasets: readonly string[];
  /** Runs after each step of a publish on an engine without transactions; a test throws here to simulate a crash. */
  readonly onStep?: ((step: PublishStep) => void | Promise<void>) | undefined;
}

/**
 * How a table column is read from a CSV column's text (spaces around numbers
 * and timestamps are allowed): `token` is the unit's token; `timestamp` takes
 * epoch seconds, milliseconds or microseconds by their magnitude, or
 * 'YYYY-MM-DD HH:MM:SS' (one of the two forms per file, as its first row
 * shows); `double` and `integer` read an empty text as null; `bigint`
 * requires a value; `negatedBoolean` is the opposite of a true/false text;
 * `basisPoints` reads a percentage and stores it ×100, rounded, as an integer.
 */
export type CsvValue = { readonly kind: 'token' } | { readonly kind: 'timestamp' | 'double' | 'integer' | 'bigint' | 'negatedBoolean' | 'basisPoints'; readonly column: string };

/** A CSV file of one token and period, loaded into a venue table. */
export interface VenueCsvImport extends VenuePeriod {
  readonly file: string;
  /** Whether the file's first line names its columns (it is skipped). */
  readonly header: boolean;
  /** The file's columns, in file order. */
  readonly csvColumns: readonly string[];
  /** The table's columns, in table order, each read from the file. */
  readonly values: readonly CsvValue[];
  /** Table columns the rows are stored in order of. */
  readonly orderBy: readonly string[];
  /** The source file, recorded with the rows so that a replaced file can be noticed. */
  readonly source: string;
  readonly path: string;
  readonly sha256: string;
}

/** Rows for a venue table's token and period, columns in table order. */
export interface VenueRowsImport extends VenuePeriod {
  readonly rows: readonly TableRow[];
  /** Whether the rows complete the period (else they are stored and the period stays a gap). */
  readonly complete: boolean;
}

/** A fill of one token as read from a fills file, for deriving positions. */
export interface StagedFill {
  readonly timeMs: number;
  readonly wallet: string;
  readonly price: number;
  readonly size: number;
  /** B (buy) or A (sell). */
  readonly side: string;
  readonly startPosition: number;
  readonly closedPnl: number;
}

/** A wallet's latest stored position snapshot before the fills at hand. */
export interface PriorPosition {
  readonly wallet: string;
  readonly side: string;
  readonly size: number;
  readonly avgEntry: number | null;
}

/**
 * One hour file of venue_b fills (JSON lines, one block per line:
 * `{"block_number", "events": [[user, fill], …]}`): for each coin, its fills,
 * the trades derived from them and the position snapshots `positions`
 * derives are replaced, keyed by what identifies them, and the hour covered.
 */
export interface VenueFillsImport {
  readonly file: string;
  /** Coins as the venue spells them; stored upper-case. */
  readonly coins: readonly string[];
  readonly lo: number;
  readonly hi: number;
  /** The coverage datasets of fills, trades and positions. */
  readonly datasets: readonly string[];
  /** Position snapshots (rows of venue_b_positions, in storage order) of a token's fills, in block order, from the prior snapshots. */
  readonly positions: (token: string, prior: readonly PriorPosition[], fills: readonly StagedFill[]) => readonly TableRow[];
  readonly onStep?: ((step: PublishStep) => void | Promise<void>) | undefined;
}

export interface VenueOperations {
  /** The sha256 recorded for a source file, or null when none was. */
  recordedChecksum(source: string, path: string): Promise<string | null>;
  /**
   * Replaces the token's rows of the period with the file's rows inside it
   * (rows outside belong to a neighbouring file), covers the period and
   * records the file; returns the rows stored.
   */
  importCsv(f: VenueCsvImport): Promise<number>;
  /** Replaces the token's rows of the period with `rows`, covering it when they are complete. */
  replaceRows(r: VenueRowsImport): Promise<void>;
  /** Stores an hour of fills (VenueFillsImport); returns the rows stored in the three tables. */
  importFills(f: VenueFillsImport): Promise<number>;
}

/** A cheap fingerprint of a network's chain: a new block or a rollback changes it. */
export interface ChainMark {
  readonly newest: number | null;
  readonly orphans: number;
}

export interface StoredBlock {
  readonly hash: string;
  readonly parentHash: string;
}

export interface RegistryToken {
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

export interface CachedToken {
  readonly address: string;
  readonly symbol: string | null;
  readonly decimals: number | null;
}

export interface StoredPool {
  readonly pool_address: string;
  readonly fee: number;
  readonly created_block: number | bigint | null;
  readonly token0_address: string;
  readonly token0: string;
  readonly token0_decimals: number;
  readonly token1_address: string;
  readonly token1: string;
  readonly token1_decimals: number;
}

/** Reads of a network's stored chain (src/store/chainLog.ts and chainReads.ts say what each is for). */
export interface ChainReadOperations {
  /** The newest stored block and the number of blocks the chain log kept. */
  mark(network: string): Promise<ChainMark>;
  /** The hash of canonical block `n` as stored, or null. */
  canonicalHash(network: string, n: number): Promise<string | null>;
  /** The parent of a block the chain log kept, or null when it never saw that block. */
  orphanParent(network: string, n: number, hash: string): Promise<string | null>;
  /** The stored headers of these blocks, by number. */
  blockHashes(network: string, numbers: readonly number[]): Promise<Map<number, StoredBlock>>;
  /** The newest stored block at or above `from`, or null. */
  tip(network: string, from: number): Promise<number | null>;
  /** The registry's deployments on `network`, by symbol. */
  registryTokens(network: string): Promise<RegistryToken[]>;
  /** What ingestion read on chain about tokens the registry does not list. */
  cachedTokens(network: string): Promise<CachedToken[]>;
  /** The pools discovered on `network`. */
  pools(network: string): Promise<StoredPool[]>;
}

/** Coverage: the intervals ingestion completed, per dataset and scope (network, or token for venues). */
export interface CoverageOperations {
  /** The covered intervals of a dataset and scope, by lo. */
  intervals(dataset: string, scope: string): Promise<{ lo: number; hi: number }[]>;
  /** Scopes that hold any coverage of `dataset`, sorted. */
  scopes(dataset: string): Promise<string[]>;
  /** The last stored block of `network` before `sinceMs` and the first at or after `untilMs`; null where there is none. */
  blocksAround(network: string, sinceMs: number, untilMs: number): Promise<{ before: number | null; after: number | null }>;
  /** Whether the store has never held data nor keys. */
  isEmpty(): Promise<boolean>;
  /** Records what ingestion of a chain last saw: its confirmation depth and the head. */
  recordChainState(scope: string, state: { confirmations: number; head: number | null }): Promise<void>;
  /** Every covered interval of the datasets, in (dataset, scope, lo) order. */
  rows(datasets: readonly string[]): Promise<CoverageRow[]>;
  /** Whether the rows of a dataset and scope sit in the table in their output order (an engine that never streams unsorted says false). */
  isPhysicallyOrdered(dataset: string, scope: string): Promise<boolean>;
}

/** Lookups in the reference tables (tokens, token_cache, pools); each engine caches them as it may. */
export interface RegistryOperations {
  tokensBySymbol(network: string, symbol: string): Promise<TokenDeployment[]>;
  registryAddress(network: string, input: string): Promise<string | null>;
  contractDecimals(network: string, address: string): Promise<number | null>;
  symbolsWithAlias(network: string, alias: string): Promise<string[]>;
  poolsBetween(network: string, a: readonly string[], b: readonly string[]): Promise<PoolRow[]>;
  tokenDirectory(): Promise<TokenListing[]>;
}

// Verification, custom dataset declarations and maintenance: the operations
// the neutral modules of the same names (./verification.ts,
// ./customDatasets.ts, ./maintenance.ts) ask of each engine.

/** The rows of one dataset in one block, as counted and hashed by the engine. */
export interface BlockDigest {
  readonly rows: number;
  readonly hash: string;
}

/** Digests of the blocks of [lo, hi] that hold rows of the table on `network`, by block number. */
export type BlockDigests = ReadonlyMap<number, BlockDigest>;

/** Blocks where the store and the node disagree on one dataset. */
export interface VerificationRecord {
  readonly network: string;
  readonly dataset: string;
  readonly verifiedAt: Date;
  /** The node's URL without credentials. */
  readonly node: string;
  /** A random sample of blocks rather than whole ranges. */
  readonly sampled: boolean;
  /** The blocks compared, as inclusive intervals. */
  readonly ranges: readonly Interval[];
  readonly blocks: number;
  readonly result: 'ok' | 'mismatch';
  /** The blocks whose rows differed, in order. */
  readonly mismatchBlocks: readonly number[];
}

export interface VerificationOperations {
  /** Count and hash, per block, of the rows held for each of `tables` on `network` in blocks [lo, hi], in the order of `tables`. */
  digests(tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]>;
  /** The same digests of the rows in `decoded` (a DecodeStore), computed by this store's engine so that they compare with `digests`. */
  decodedDigests(decoded: Store, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]>;
  /** Records one verification run's outcome, one record per dataset. */
  record(records: readonly VerificationRecord[]): Promise<void>;
  /** Every recorded verification of the given datasets (null: of every dataset), oldest first. */
  records(datasets: readonly string[] | null): Promise<VerificationRecord[]>;
}

/**
 * The in-memory store verification decodes a node's rows into, with ingestion's
 * own writers; it holds nothing else, so it is emptied between batches.
 */
export interface DecodeStore extends Store {
  /** Empties the tables written, the blocks and the coverage, whole. */
  clearDecoded(tables: readonly TableDef[]): Promise<void>;
  /** Puts `rows` (columns in table order) in `table`, in place of whatever an earlier batch left there. */
  replaceDecodedRows(table: TableDef, rows: readonly TableRow[]): Promise<void>;
}

/** A dataset and its table (an event of a custom declaration). */
export interface DatasetTable {
  readonly id: string;
  readonly table: TableDef;
}

/** A declaration as saved, once checked against the one saved before it (src/store/customDatasets.ts). */
export interface CustomDatasetWrite {
  readonly name: string;
  /** The declaration as JSON text. */
  readonly json: string;
  /** The declared events, whose tables are created when missing. */
  readonly current: readonly DatasetTable[];
  /** `current` and the events the declaration no longer names: all emptied on a `fresh` network. */
  readonly all: readonly DatasetTable[];
  /** Networks whose rows and coverage go, the blocks before `fromBlock` then covered for `current`. */
  readonly fresh: readonly { readonly network: string; readonly fromBlock: number }[];
}

export interface CustomDatasetOperations {
  /** Every declared dataset, by name, reused as the engine reuses lookups (declarations change only when one is saved). */
  list(): Promise<readonly CustomDataset[]>;
  /** Creates the tables, empties the fresh networks and records the declaration. */
  save(w: CustomDatasetWrite): Promise<void>;
}

/** What a table holds for one scope (network or token). */
export interface TableScopeStatus {
  readonly scope: string;
  readonly rows: number;
  readonly blockMin: number | null;
  readonly blockMax: number | null;
  readonly timeMin: Date | null;
  readonly timeMax: Date | null;
}

export interface MaintenanceOperations {
  /** Empties every dataset of the catalog, their coverage and chain state, and the block headers; coverage goes first. */
  clear(): Promise<void>;
  /** Rows, block and time bounds of a table per value of its `scope` column, by scope. */
  tableStatus(table: string, scope: 'network' | 'token', hasBlocks: boolean): Promise<TableScopeStatus[]>;
  /** Rewrites the tables holding rows appended out of order, sorted by their catalog order (an engine that keeps them sorted has none); returns those rewritten. */
  compact(): Promise<string[]>;
  /**
   * Runs `build`, which writes datasets through the embedded store's
   * operations (the demo's generators), for this store: on the store itself
   * when it is one, else on an in-memory embedded store whose datasets then
   * replace this store's (cleared first), rows counted on both sides.
   */
  build(build: (local: Store) => Promise<void>): Promise<void>;
  /**
   * Replaces the demo's datasets with the plan's rows, generated by the
   * engine's own SQL; only the embedded store has a generator (other engines
   * get the demo through `build`).
   */
  writeDemo?(plan: DemoPlan): Promise<void>;
}
