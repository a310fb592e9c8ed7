/**
 * The vocabulary of the catalog: the single declarative description of every
 * endpoint. Everything else (routes, validation, discovery, OpenAPI, cost,
 * table DDL, docs, client) is derived from values of these types.
 */
import type { AbiEvent } from 'viem';

export type ParamType = 'string' | 'integer' | 'number' | 'boolean';

export interface ParamDef {
  readonly type: ParamType;
  readonly description: string;
  readonly required?: boolean;
  /** Allowed values. String enums are matched without regard to case. */
  readonly enum?: readonly (string | number)[];
  readonly default?: string | number | boolean;
  /** Parameters that may not be given together with this one. */
  readonly exclusiveWith?: readonly string[];
  /** A comma-separated list of values is accepted, meaning any of them. */
  readonly list?: boolean;
  /** Only accepted on these networks. */
  readonly networks?: readonly string[];
  readonly minimum?: number;
  /** How the value is normalised before validation. */
  readonly case?: 'upper' | 'lower';
}

export type Params = Readonly<Record<string, ParamDef>>;

/** The wire type of an output column, shared by JSON, CSV and Parquet. */
export type ColumnType = 'integer' | 'double' | 'string' | 'boolean';

/**
 * How an output column is computed from a stored row, engine-neutral: each
 * store backend renders it in its own dialect. Only values from the catalog
 * appear here; request values are bound by the planner.
 */
export type ColumnExpr =
  /** A stored column of the dataset's table. */
  | { readonly kind: 'column'; readonly name: string }
  /** A constant of the catalog; `null` typed as the output column's type. */
  | { readonly kind: 'literal'; readonly value: string | number | null; readonly type: ColumnType }
  | { readonly kind: 'negate'; readonly arg: ColumnExpr }
  /** `then` when `left op right` holds, else `else`. */
  | { readonly kind: 'if'; readonly left: ColumnExpr; readonly op: '=' | '>'; readonly right: ColumnExpr; readonly then: ColumnExpr; readonly else: ColumnExpr }
  /** A stored timestamp as ISO 8601 UTC text: `2025-01-02T03:04:05Z`, or with `.mmm` milliseconds. */
  | { readonly kind: 'iso_time'; readonly arg: ColumnExpr; readonly millis: boolean }
  /** An integer as its decimal digits: exact in every client, where a JSON number past 2^53 is not. */
  | { readonly kind: 'decimal_text'; readonly arg: ColumnExpr };

export interface OutputColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** How the value is computed; defaults to the stored column of the same name. */
  readonly expr?: ColumnExpr;
  readonly description: string;
}

/**
 * The engine-neutral type of a stored column; each store backend maps it to
 * its own (DuckDB `BIGNUM`, ClickHouse `UInt256`…). Raw on-chain integers are
 * `uint256`/`int256` and must be kept exact.
 */
export type StoredType = 'string' | 'boolean' | 'uint8' | 'int32' | 'int64' | 'uint64' | 'float64' | 'timestamp' | 'uint256' | 'int256';

/** A stored column. */
export interface StoredColumn {
  readonly name: string;
  readonly type: StoredType;
}

export interface TableDef {
  readonly name: string;
  readonly columns: readonly StoredColumn[];
  /** Physical and output order. The first key is the partition key (network, token). */
  readonly orderBy: readonly string[];
}

/** How a filter parameter narrows rows. */
export type FilterDef =
  | { readonly kind: 'address'; readonly columns: readonly string[] }
  | { readonly kind: 'label'; readonly columns: readonly string[] }
  | { readonly kind: 'category'; readonly columns: readonly string[] }
  | { readonly kind: 'min_amount'; readonly column: string }
  | { readonly kind: 'max_amount'; readonly column: string }
  | { readonly kind: 'token' }
  | { readonly kind: 'decimals' }
  | { readonly kind: 'market'; readonly column: string; readonly network: string }
  | { readonly kind: 'pool' };

export type Format = 'json' | 'csv' | 'parquet';

export interface RangeLimit {
  readonly blocks: number;
  readonly seconds: number;
}

export type CostClass = { readonly kind: 'blocks' } | { readonly kind: 'days'; readonly perDay: number; readonly minimum: number };

export type Aggregation = 'sum' | 'mean';

export interface AggregateColumn {
  readonly source_column: string;
  readonly aggregation: Aggregation;
  readonly output_column: string;
}

export interface PivotColumn {
  readonly value_column: string;
  readonly key_column: string;
  readonly aggregation: Aggregation;
  readonly suffix: string;
  readonly output_pattern: string;
}

export interface AggregateSchema {
  readonly columns: readonly AggregateColumn[];
  readonly pivot_columns?: readonly PivotColumn[];
  readonly always_included: readonly string[];
  /** Output columns that split each bucket into one row per value (Tron and Bitcoin: `token`). */
  readonly group_columns?: readonly string[];
  /** Whether `with_value=true` adds `agg_value_usd`. */
  readonly valued: boolean;
}

/** An amount and the symbol of its token: stored or output column names of the endpoint. */
export interface PricedLeg {
  readonly amount: string;
  readonly token: string;
}

export type Family = 'evm' | 'tron' | 'btc' | 'exchange';

interface EndpointBase {
  /** Stable id, also the dataset name in `chainq status`: `evm/erc20/transfer`. */
  readonly id: string;
  readonly path: string;
  readonly family: Family;
  /** `erc20`, `lending_v3`, `venue_a`… */
  readonly protocol: string;
  /** `transfer`, `swap`, `raw_trades`… */
  readonly event: string;
  readonly summary: string;
  readonly table: TableDef;
  /** Endpoint-specific parameters; the family's common ones are added by derivation. */
  readonly params: Params;
  readonly filters: Readonly<Record<string, FilterDef>>;
  readonly columns: readonly OutputColumn[];
  readonly formats: readonly Format[];
  readonly defaultFormat: Format;
  readonly cost: CostClass;
  /** Whether the route is exposed. Entries are described before they are served. */
  readonly served: boolean;
}

export interface ChainEndpoint extends EndpointBase {
  readonly family: 'evm' | 'tron' | 'btc';
  readonly networks: readonly string[];
  /** Extra columns that `verbose=true` appends. */
  readonly verboseColumns: readonly OutputColumn[];
  /** The amount column priced by `with_value`, with the token symbol column beside it. */
  readonly pricedAmount?: PricedLeg;
  /**
   * Rows that move two tokens (pool events), priced leg by leg. `sum` adds the
   * legs' values (liquidity moves both tokens); `first_priced` takes the first
   * leg whose token has a price (the two legs of a swap are worth the same).
   */
  readonly pricedLegs?: { readonly combine: 'sum' | 'first_priced'; readonly legs: readonly PricedLeg[] };
  readonly aggregate?: AggregateSchema;
  /** Name of the event as emitted on chain, shown in verbose rows (an EVM log event's is its ABI name). */
  readonly eventName: string;
  /**
   * The ABI event an EVM log dataset decodes, declared once here: its name is
   * `eventName`, its selector the topic0 ingestion asks the node for, its
   * inputs the decoder's typed arguments.
   */
  readonly abi?: AbiEvent;
}

export interface VenueEndpoint extends EndpointBase {
  readonly family: 'exchange';
  readonly maxDays: number;
}

export type Endpoint = ChainEndpoint | VenueEndpoint;
