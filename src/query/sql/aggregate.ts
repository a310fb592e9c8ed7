/**
 * An aggregate plan → one SQL query that buckets in the engine. The inner
 * SELECT computes, per selected row, its bucket number and the values the
 * aggregates need; the outer one groups by bucket (and token, for Tron and
 * Bitcoin) and renders the bucket edges. Every request value is bound.
 */
import { AGG_VALUE_COLUMN, bucketColumns, pivotGroups } from '../../catalog/derive/aggregate.ts';
import type { Aggregation, ChainEndpoint } from '../../catalog/types.ts';
import type { Bucketing } from '../bucketing.ts';
import { ident, type SqlBuilder } from './builder.ts';
import type { RowValueSql } from './value.ts';

export interface AggregateSqlInput {
  readonly endpoint: ChainEndpoint;
  readonly table: string;
  readonly where: readonly string[];
  readonly columnSql: (name: string) => string;
  readonly q: SqlBuilder;
  readonly bucketing: Bucketing;
  readonly pivotTokens: readonly string[];
  /** The per-row USD value when `agg_value_usd` is wanted. */
  readonly value: RowValueSql | null;
  /** Add `token` to the group columns (several tokens asked of an endpoint that does not split by token). */
  readonly splitByToken?: boolean;
  /** Bitcoin time buckets in JSON and Parquet: `time` as integer epoch seconds (interface.md §2.1). */
  readonly epochSecondsTime: boolean;
}

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;
const AGG_SQL: Readonly<Record<Aggregation, string>> = { sum: 'sum', mean: 'avg' };

export function aggregateSql(input: AggregateSqlInput): { sql: string; columns: string[] } {
  const { endpoint: e, q, bucketing: b, columnSql } = input;
  const schema = e.aggregate;
  if (!schema) throw new Error(`${e.id} has no aggregate`);

  const inner: string[] = [];
  const outer: { sql: string; name: string }[] = [];
  const groupKeys = ['__bucket'];

  // Bucket number k: the row lies in [origin + k·width, origin + (k+1)·width).
  const width = b.kind === 'time' ? q.bind(b.widthMs) : q.bind(b.width);
  if (b.kind === 'time') {
    const origin = q.bind(b.originMs);
    // Epoch milliseconds of bucket k's start; every stored time is after both origins, so // floors.
    inner.push(`(epoch_ms(t.time) - CAST(${origin} AS BIGINT)) // CAST(${width} AS BIGINT) AS __bucket`);
    const startMs = (k: string) => `((${k}) * CAST(${width} AS BIGINT) + CAST(${origin} AS BIGINT))`;
    const iso = (k: string) => `strftime(make_timestamp(${startMs(k)} * 1000), ${ISO})`;
    const names = bucketColumns(e).time;
    if (names.length === 2) {
      outer.push({ sql: iso('__bucket'), name: names[0]! }, { sql: iso('__bucket + 1'), name: names[1]! });
    } else {
      outer.push({ sql: input.epochSecondsTime ? `${startMs('__bucket')} // 1000` : iso('__bucket'), name: names[0]! });
    }
  } else {
    inner.push(`t.block_number // CAST(${width} AS BIGINT) AS __bucket`);
    const names = bucketColumns(e).block_number;
    const start = `__bucket * CAST(${width} AS BIGINT)`;
    outer.push({ sql: start, name: names[0]! });
    // The last block of the bucket, inclusive like the block_end parameter.
    if (names.length === 2) outer.push({ sql: `(__bucket + 1) * CAST(${width} AS BIGINT) - 1`, name: names[1]! });
  }

  const groupColumns = [...(schema.group_columns ?? [])];
  if (input.splitByToken && !groupColumns.includes('token')) groupColumns.push('token');
  groupColumns.forEach((g, i) => {
    inner.push(`${columnSql(g)} AS __g${i}`);
    outer.push({ sql: `__g${i}`, name: g });
    groupKeys.push(`__g${i}`);
  });

  const pivots = schema.pivot_columns ?? [];
  pivots.forEach((p, i) => inner.push(`${columnSql(p.key_column)} AS __k${i}`, `${columnSql(p.value_column)} AS __v${i}`));
  for (const group of pivotGroups(pivots, input.pivotTokens)) {
    const token = q.bind(group.token);
    // Every pivot is a sum (the catalog declares no other pivot aggregation).
    const parts = group.pivots.map((p) => {
      const i = pivots.indexOf(p);
      return `CASE WHEN __k${i} = ${token} THEN __v${i} ELSE 0 END`;
    });
    outer.push({ sql: `sum(${parts.join(' + ')})`, name: group.name });
  }

  schema.columns.forEach((c, i) => {
    inner.push(`${columnSql(c.source_column)} AS __c${i}`);
    outer.push({ sql: `${AGG_SQL[c.aggregation]}(__c${i})`, name: c.output_column });
  });

  for (const name of schema.always_included) {
    if (name !== 'count') throw new Error(`${e.id}: always_included column ${name} has no definition`);
    outer.push({ sql: 'count(*)', name });
  }

  if (input.value) {
    inner.push(`${input.value.expr} AS __value`);
    // A bucket's value is known only when every event in it has a price.
    outer.push({ sql: `CASE WHEN count(__value) = count(*) THEN sum(__value) END`, name: AGG_VALUE_COLUMN });
  }

  const from = `${input.table} t${input.value ? ` ${input.value.joins}` : ''}`;
  const keys = groupKeys.join(', ');
  const sql = `SELECT ${outer.map((o) => `${o.sql} AS ${ident(o.name)}`).join(', ')}
    FROM (SELECT ${inner.join(', ')} FROM ${from} WHERE ${input.where.join(' AND ')}) e
    GROUP BY ${keys} ORDER BY ${keys}`;
  return { sql, columns: outer.map((o) => o.name) };
}
