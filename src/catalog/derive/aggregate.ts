/**
 * Catalog → the shape of aggregate rows. The discovery payload
 * (`aggregate_schema`) and the aggregate planner both derive their column
 * lists here, so what the schema promises is what the endpoint returns.
 */
import type { AggregateColumn, ChainEndpoint, OutputColumn, PivotColumn } from '../types.ts';

export type GroupBy = 'time' | 'block_number';

export const GROUP_BY_VALUES: readonly GroupBy[] = ['time', 'block_number'];

/** The column `with_value=true` appends to aggregates of valued event types. */
export const AGG_VALUE_COLUMN = 'agg_value_usd';

/** The placeholder of `output_pattern` replaced by a token symbol. */
export const TOKEN_PLACEHOLDER = '<TOKEN>';

/** Tron and Bitcoin accept only these time periods (docs/aggregates.md, "Endpoints"). */
export const LISTED_TIME_PERIODS = ['1m', '5m', '30m', '1h', '1d', '1w'] as const;

/** Tron and Bitcoin defaults when `period` is left out (docs/aggregates.md, "Endpoints"). */
export const DEFAULT_PERIODS: Readonly<Record<GroupBy, string>> = { time: '1h', block_number: '1000' };

/**
 * The columns that name a bucket, per grouping. EVM rows carry both edges;
 * Tron and Bitcoin rows carry the bucket start under the event field's name.
 */
export function bucketColumns(e: ChainEndpoint): Readonly<Record<GroupBy, readonly string[]>> {
  return e.family === 'evm' ? { time: ['time_start', 'time_end'], block_number: ['block_start', 'block_end'] } : { time: ['time'], block_number: ['block_number'] };
}

/** The payload of `aggregate_schema` for one event type (docs/aggregates.md, "aggregate_schema": the specification's fields plus those that make it complete). */
export interface PublicAggregateSchema {
  readonly columns: readonly AggregateColumn[];
  readonly pivot_columns?: readonly PivotColumn[];
  readonly always_included: readonly string[];
  /** Columns that open every row, per `group_by` value. */
  readonly bucket_columns: Readonly<Record<GroupBy, readonly string[]>>;
  /** Columns that split a bucket into one row per value, after the bucket columns. */
  readonly group_columns?: readonly string[];
  /** Columns that `with_value=true` appends, last. */
  readonly value_columns?: readonly string[];
}

export function publicAggregateSchema(e: ChainEndpoint): PublicAggregateSchema | null {
  const s = e.aggregate;
  if (!s) return null;
  return {
    columns: s.columns,
    ...(s.pivot_columns?.length ? { pivot_columns: s.pivot_columns } : {}),
    always_included: s.always_included,
    bucket_columns: bucketColumns(e),
    ...(s.group_columns?.length ? { group_columns: s.group_columns } : {}),
    ...(acceptsWithValue(e) && s.valued ? { value_columns: [AGG_VALUE_COLUMN] } : {}),
  };
}

/** `with_value` is an aggregate parameter of EVM endpoints only (docs/aggregates.md, "Endpoints": Tron and Bitcoin do not take it). */
export function acceptsWithValue(e: ChainEndpoint): boolean {
  return e.family === 'evm';
}

export const pivotOutputName = (p: PivotColumn, token: string): string => p.output_pattern.replace(TOKEN_PLACEHOLDER, token);

/**
 * Pivot output columns for the given tokens: for each token in order, each
 * distinct output pattern in declaration order. Pivots sharing a pattern
 * (amount0 keyed by token0 and amount1 keyed by token1) feed one column.
 */
export function pivotGroups(pivots: readonly PivotColumn[], tokens: readonly string[]): { name: string; token: string; pivots: PivotColumn[] }[] {
  const patterns = [...new Set(pivots.map((p) => p.output_pattern))];
  const out: { name: string; token: string; pivots: PivotColumn[] }[] = [];
  for (const token of new Set(tokens)) {
    for (const pattern of patterns) {
      const group = pivots.filter((p) => p.output_pattern === pattern);
      out.push({ name: pattern.replace(TOKEN_PLACEHOLDER, token), token, pivots: group });
    }
  }
  return out;
}

export interface AggregateShape {
  readonly groupBy: GroupBy;
  readonly withValue: boolean;
  /** Token symbols the pivot columns expand over, in output order. */
  readonly pivotTokens: readonly string[];
}

/** The output columns of an aggregate response, in order: bucket, group, pivots, columns, always included, value. */
export function aggregateOutputColumns(e: ChainEndpoint, shape: AggregateShape): string[] {
  const s = e.aggregate;
  if (!s) throw new Error(`${e.id} has no aggregate`);
  return [
    ...bucketColumns(e)[shape.groupBy],
    ...(s.group_columns ?? []),
    ...pivotGroups(s.pivot_columns ?? [], shape.pivotTokens).map((g) => g.name),
    ...s.columns.map((c) => c.output_column),
    ...s.always_included,
    ...(shape.withValue && s.valued && acceptsWithValue(e) ? [AGG_VALUE_COLUMN] : []),
  ];
}

/**
 * The rows of an aggregate route as documented in OpenAPI: grouped by time,
 * with values, pivot columns shown with their <TOKEN> placeholder.
 */
export function aggregateDocColumns(e: ChainEndpoint): OutputColumn[] {
  const s = e.aggregate;
  if (!s) return [];
  const bucketNames = new Set([...bucketColumns(e).time, ...bucketColumns(e).block_number]);
  const groups = new Set(s.group_columns ?? []);
  return aggregateOutputColumns(e, { groupBy: 'time', withValue: true, pivotTokens: [TOKEN_PLACEHOLDER] }).map((name) => {
    if (bucketNames.has(name)) {
      const btc = e.family === 'btc';
      return {
        name,
        type: btc ? 'integer' : 'string',
        description: btc ? 'Bucket start, epoch seconds (ISO 8601 in CSV); block_number with group_by=block_number.' : 'Bucket edge, ISO 8601 UTC; block numbers with group_by=block_number.',
      };
    }
    if (groups.has(name)) return { name, type: 'string', description: 'Token symbol.' };
    if (name === 'count') return { name, type: 'integer', description: 'Events in the bucket.' };
    if (name === AGG_VALUE_COLUMN) return { name, type: 'double', description: 'USD value of the bucket (with_value=true); null when an event in it has no price.' };
    return { name, type: 'double', description: name.includes(TOKEN_PLACEHOLDER) ? 'One column per pool token.' : 'Aggregated value.' };
  });
}
