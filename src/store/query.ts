/**
 * The engine-neutral description of a data query: what the planners in
 * query/ build and what each store backend renders in its own dialect (SQL
 * text, parameter syntax, time formatting, export options). It names tables,
 * columns and bound parameters; it holds no SQL text.
 *
 * Request values only ever appear as parameters (`param`), which the
 * renderer writes as placeholders and passes to the engine beside the text.
 */
import type { ColumnExpr, ColumnType } from '../catalog/types.ts';

/** What a bound parameter holds, so that engines with typed placeholders (`{p:Type}`) can declare it. */
export type ParamType = 'string' | 'int64' | 'float64' | 'timestamp' | 'boolean';

/** A parameter value as the planner binds it; a `timestamp` is epoch milliseconds. */
export type ParamValue = string | number | bigint | boolean | null;

export interface BoundParam {
  readonly value: ParamValue;
  readonly type: ParamType;
}

/** Bound parameters by name; names are `p0`, `p1`… */
export type QueryParams = Readonly<Record<string, BoundParam>>;

/** An expression over the row of the dataset table. */
export type Expr =
  | ColumnExpr
  /** A bound request value. */
  | { readonly kind: 'param'; readonly name: string }
  /**
   * An amount stored at the decimals known at ingestion, rescaled to other
   * decimals: amount × 10^(decimals − to).
   */
  | { readonly kind: 'rescale'; readonly amount: Expr; readonly decimals: Expr; readonly to: Expr }
  /** `then` for rows whose `arg` is one of `values`, else `otherwise`. */
  | { readonly kind: 'when_in'; readonly arg: Expr; readonly values: readonly Expr[]; readonly then: Expr; readonly otherwise: Expr };

/**
 * A caller's own label namespace (docs/labels.md): its rows are read beside
 * the shared labels. Only the caller's key id selects them, so another key's
 * namespace is never read.
 */
export interface LabelNamespace {
  readonly keyId: Expr;
  readonly name: Expr;
}

/** Addresses taken from the labels table (plus a namespace, when named), scoped to one network (or to all networks). */
export type LabelSet =
  /** Labels containing any of the substrings, without regard to case. */
  | { readonly kind: 'label'; readonly network: Expr; readonly namespace?: LabelNamespace | null; readonly substrings: readonly Expr[] }
  /** Categories equal to any of the values, without regard to case. */
  | { readonly kind: 'category'; readonly network: Expr; readonly namespace?: LabelNamespace | null; readonly categories: readonly Expr[] };

export type Condition =
  | { readonly kind: 'compare'; readonly left: Expr; readonly op: '=' | '>=' | '<=' | '<' | '>'; readonly right: Expr }
  | { readonly kind: 'between'; readonly arg: Expr; readonly low: Expr; readonly high: Expr }
  | { readonly kind: 'in'; readonly arg: Expr; readonly values: readonly Expr[] }
  | { readonly kind: 'in_labels'; readonly arg: Expr; readonly set: LabelSet }
  | { readonly kind: 'or'; readonly args: readonly Condition[] };

/**
 * The USD value of a row: each leg's amount times its token's price at the
 * row's minute (else the token's peg). `first_priced` takes the first leg that
 * has a price; `sum` adds the legs, where a leg that moved nothing needs no
 * price. Null when a needed price is unknown.
 */
export interface RowValue {
  readonly combine: 'sum' | 'first_priced';
  readonly legs: readonly { readonly amount: Expr; readonly token: Expr }[];
}

export interface OutputExpr {
  readonly name: string;
  readonly expr: Expr;
  /** The column's wire type (the catalog's), which decides how an engine writes it in each format. */
  readonly type: ColumnType;
}

/** Rows of a table, one output row per stored row. */
export interface RowsQuery {
  readonly kind: 'rows';
  readonly table: string;
  readonly columns: readonly OutputExpr[];
  /** Appended last under this name when set. */
  readonly value: { readonly name: string; readonly value: RowValue } | null;
  readonly where: readonly Condition[];
  /** Stored columns to sort by. */
  readonly orderBy: readonly string[];
  /**
   * The rows sit in the table in `orderBy` order already (DuckDB keeps
   * insertion order): an engine may stream them without sorting where its
   * plan is sure to keep the scan's order, and must sort otherwise (DuckDB:
   * a join, such as a label set, keeps none; src/store/duckdb/render.ts).
   */
  readonly storedInOrder: boolean;
}

/**
 * Buckets of rows. Output columns come in this order: the bucket's edges,
 * the group columns, the pivots, the measures, the count, the value. Time
 * edges are ISO text (integers as epoch seconds), block edges integers; the
 * pivots, measures and value are doubles, the count an integer.
 */
export interface AggregateQuery {
  readonly kind: 'aggregate';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly bucket: TimeBucket | BlockBucket;
  readonly groups: readonly OutputExpr[];
  /** Per pivot column: the sum of the values whose key equals `token`. */
  readonly pivots: readonly { readonly name: string; readonly token: Expr; readonly parts: readonly { readonly key: Expr; readonly value: Expr }[] }[];
  readonly measures: readonly { readonly name: string; readonly fn: 'sum' | 'mean'; readonly arg: Expr }[];
  /** The name of the row count, when wanted. */
  readonly count: string | null;
  /** Known only when every row of the bucket has a value. */
  readonly value: { readonly name: string; readonly value: RowValue } | null;
}

/** Bucket k holds rows with time in [origin + k·width, origin + (k+1)·width), in epoch milliseconds. */
export interface TimeBucket {
  readonly kind: 'time';
  readonly origin: Expr;
  readonly width: Expr;
  /**
   * `start_end`: two ISO columns, the bucket's start and end; `start`: one ISO
   * column; `start_epoch_seconds`: one integer column of Unix seconds.
   */
  readonly edges: 'start_end' | 'start' | 'start_epoch_seconds';
  readonly names: readonly string[];
}

/** Bucket k holds blocks [k·width, (k+1)·width); edges are the first and the last block, inclusive. */
export interface BlockBucket {
  readonly kind: 'block';
  readonly width: Expr;
  readonly edges: 'start_end' | 'start';
  readonly names: readonly string[];
}

/**
 * Candles of `window` seconds, aligned to the Unix epoch, from stored
 * 1-minute candles: time (ISO, window start), open, high, low, close,
 * volume (rounded to 1e-8), trade_count.
 */
export interface CandlesQuery {
  readonly kind: 'candles';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly windowSeconds: Expr;
}

export type DataQuery = RowsQuery | AggregateQuery | CandlesQuery;

/** A data query and the values of its parameters. */
export interface BoundQuery {
  readonly query: DataQuery;
  readonly params: QueryParams;
}
