/**
 * An aggregate request → the description of one query that buckets in the
 * engine: per selected row its bucket and the values the aggregates need,
 * grouped by bucket (and token, for Tron and Bitcoin). Every request value
 * is bound.
 */
import { AGG_VALUE_COLUMN, bucketColumns, pivotGroups } from '../../catalog/derive/aggregate.ts';
import type { ChainEndpoint, ColumnType } from '../../catalog/types.ts';
import type { AggregateQuery, Condition, Expr, RowValue } from '../../store/query.ts';
import type { Bucketing } from '../bucketing.ts';
import type { ParamBinder } from './params.ts';

export interface AggregateQueryInput {
  readonly endpoint: ChainEndpoint;
  readonly where: readonly Condition[];
  readonly columnExpr: (name: string) => Expr;
  readonly q: ParamBinder;
  readonly bucketing: Bucketing;
  readonly pivotTokens: readonly string[];
  /** The per-row USD value when `agg_value_usd` is wanted. */
  readonly value: RowValue | null;
  /** Add `token` to the group columns (several tokens asked of an endpoint that does not split by token). */
  readonly splitByToken?: boolean;
  /** Bitcoin time buckets in JSON and Parquet: `time` as integer epoch seconds (docs/aggregates.md, "Tron and Bitcoin"). */
  readonly epochSecondsTime: boolean;
}

/** The wire type of one of the endpoint's row columns, which a group column repeats. */
function columnType(e: ChainEndpoint, name: string): ColumnType {
  const c = [...e.columns, ...e.verboseColumns].find((x) => x.name === name);
  if (!c) throw new Error(`${e.id}: group column ${name} is not one of its columns`);
  return c.type;
}

export function aggregateQuery(input: AggregateQueryInput): { query: AggregateQuery; columns: string[] } {
  const { endpoint: e, q, bucketing: b, columnExpr } = input;
  const schema = e.aggregate;
  if (!schema) throw new Error(`${e.id} has no aggregate`);

  let bucket: AggregateQuery['bucket'];
  if (b.kind === 'time') {
    const width = q.bind(b.widthMs, 'int64');
    const origin = q.bind(b.originMs, 'int64');
    const names = bucketColumns(e).time;
    const edges = names.length === 2 ? 'start_end' : input.epochSecondsTime ? 'start_epoch_seconds' : 'start';
    bucket = { kind: 'time', origin, width, edges, names };
  } else {
    const names = bucketColumns(e).block_number;
    bucket = { kind: 'block', width: q.bind(b.width, 'int64'), edges: names.length === 2 ? 'start_end' : 'start', names };
  }

  const groupColumns = [...(schema.group_columns ?? [])];
  if (input.splitByToken && !groupColumns.includes('token')) groupColumns.push('token');
  const groups = groupColumns.map((name) => ({ name, expr: columnExpr(name), type: columnType(e, name) }));
  const pivotColumns = schema.pivot_columns ?? [];
  // Every pivot is a sum (the catalog declares no other pivot aggregation).
  const pivots = pivotGroups(pivotColumns, input.pivotTokens).map((group) => ({
    name: group.name,
    token: q.bind(group.token),
    parts: group.pivots.map((p) => ({ key: columnExpr(p.key_column), value: columnExpr(p.value_column) })),
  }));
  const measures = schema.columns.map((c) => ({ name: c.output_column, fn: c.aggregation, arg: columnExpr(c.source_column) }));
  let count: string | null = null;
  for (const name of schema.always_included) {
    if (name !== 'count') throw new Error(`${e.id}: always_included column ${name} has no definition`);
    count = name;
  }
  const value = input.value ? { name: AGG_VALUE_COLUMN, value: input.value } : null;
  const query: AggregateQuery = { kind: 'aggregate', table: e.table.name, where: input.where, bucket, groups, pivots, measures, count, value };
  const columns = [...bucket.names, ...groups.map((g) => g.name), ...pivots.map((p) => p.name), ...measures.map((m) => m.name), ...(count ? [count] : []), ...(value ? [value.name] : [])];
  return { query, columns };
}
