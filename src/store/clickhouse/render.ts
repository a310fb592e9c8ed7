/**
 * ClickHouse's rendering of an engine-neutral query description: SQL text
 * with typed `{name:Type}` placeholders and the values ClickHouse binds to
 * them (`query_params`). The dataset table is aliased `t`; request values
 * never enter the text. Times are `DateTime64(3, 'UTC')`.
 *
 * The outermost SELECT writes each output column as DuckDB writes it in the
 * requested format (`format.ts`), so that both engines answer the same
 * bytes (docs/storage.md); the columns' types follow DuckDB's (a count is
 * Int64, an integer constant Int32).
 */
import type { ColumnExpr, ColumnType, Format, StoredType } from '../../catalog/types.ts';
import type { AggregateQuery, BoundQuery, CandlesQuery, Condition, Expr, LabelSet, ParamType, QueryParams, RowValue, RowsQuery } from '../query.ts';
import { exportSelectList, type ExportColumn } from './format.ts';
import { ident, quote } from './sql.ts';
import { innerAliases } from '../innerAliases.ts';

export { ident };

/** ClickHouse's type for each catalog column type; raw on-chain integers stay exact. */
export const CLICKHOUSE_TYPES: Readonly<Record<StoredType, string>> = {
  string: 'String',
  boolean: 'Bool',
  uint8: 'UInt8',
  int32: 'Int32',
  int64: 'Int64',
  uint64: 'UInt64',
  float64: 'Float64',
  timestamp: `DateTime64(3, 'UTC')`,
  uint256: 'UInt256',
  int256: 'Int256',
};

const PARAM_TYPES: Readonly<Record<ParamType, string>> = {
  string: 'String',
  int64: 'Int64',
  float64: 'Float64',
  boolean: 'Bool',
  timestamp: `DateTime64(3, 'UTC')`,
};
const NULL_TYPES: Readonly<Record<ColumnType, string>> = { integer: 'Nullable(Int32)', double: 'Nullable(Float64)', string: 'Nullable(String)', boolean: 'Nullable(Bool)' };

/** Parameter values as ClickHouse parses them from text: timestamps as `YYYY-MM-DD hh:mm:ss.mmm` UTC. */
export type ClickHouseParams = Record<string, string | number | boolean | null>;

export interface ClickHouseRenderOptions {
  /** The database holding the store's tables; unqualified names when absent. */
  readonly database?: string;
}

export function renderClickHouse(bound: BoundQuery, format: Format, opts: ClickHouseRenderOptions = {}): { sql: string; params: ClickHouseParams } {
  const r = new Renderer(bound.params, format, opts.database ?? null);
  const q = bound.query;
  const sql = q.kind === 'rows' ? r.rows(q) : q.kind === 'aggregate' ? r.aggregate(q) : r.candles(q);
  return { sql, params: clickHouseParams(bound.params) };
}

function clickHouseParams(params: QueryParams): ClickHouseParams {
  const out: ClickHouseParams = {};
  for (const [name, p] of Object.entries(params)) {
    if (p.type === 'timestamp' && typeof p.value === 'number') out[name] = new Date(p.value).toISOString().replace('T', ' ').replace('Z', '');
    else out[name] = typeof p.value === 'bigint' ? p.value.toString() : p.value;
  }
  return out;
}

/** A double without its negative zero; abs() keeps the column's type. */
const noNegativeZero = (sql: string): string => `if(${sql} = 0, abs(${sql}), ${sql})`;

/** ISO 8601 UTC text of a DateTime64 expression, to the second or the millisecond. */
function isoTime(sql: string, millis: boolean): string {
  const seconds = `formatDateTime(${sql}, '%Y-%m-%dT%H:%i:%S', 'UTC')`;
  if (!millis) return `concat(${seconds}, 'Z')`;
  return `concat(${seconds}, '.', leftPad(toString(toUnixTimestamp64Milli(${sql}) % 1000), 3, '0'), 'Z')`;
}

class Renderer {
  constructor(
    private readonly params: QueryParams,
    private readonly format: Format,
    private readonly database: string | null,
  ) {}

  /** One of the store's tables, by its catalog or system name. */
  table(name: string): string {
    return this.database === null ? ident(name) : `${ident(this.database)}.${ident(name)}`;
  }

  expr(e: Expr | ColumnExpr): string {
    switch (e.kind) {
      case 'column':
        return `t.${ident(e.name)}`;
      case 'literal':
        if (e.value === null) return `CAST(NULL, '${NULL_TYPES[e.type]}')`;
        if (typeof e.value === 'string') return quote(e.value);
        // DuckDB types a small whole constant INTEGER; ClickHouse would take the narrowest (UInt8).
        return e.type === 'integer' ? `toInt32(${e.value})` : `toFloat64(${e.value})`;
      case 'negate':
        return `-(${this.expr(e.arg)})`;
      case 'if':
        return `if(${this.expr(e.left)} ${e.op} ${this.expr(e.right)}, ${this.expr(e.then)}, ${this.expr(e.else)})`;
      case 'iso_time':
        return isoTime(this.expr(e.arg), e.millis);
      case 'decimal_text':
        return `toString(${this.expr(e.arg)})`;
      case 'param': {
        const p = this.params[e.name];
        if (!p) throw new Error(`query uses unbound parameter ${e.name}`);
        return `{${e.name}:${PARAM_TYPES[p.type]}}`;
      }
      case 'rescale':
        return `(${this.expr(e.amount)} * pow(10, toInt32(${this.expr(e.decimals)}) - ${this.expr(e.to)}))`;
      case 'when_in':
        return `(CASE WHEN ${this.expr(e.arg)} IN (${e.values.map((v) => this.expr(v)).join(', ')}) THEN ${this.expr(e.then)} ELSE ${this.expr(e.otherwise)} END)`;
    }
  }

  condition(c: Condition): string {
    switch (c.kind) {
      case 'compare':
        return `${this.expr(c.left)} ${c.op} ${this.expr(c.right)}`;
      case 'between':
        return `${this.expr(c.arg)} BETWEEN ${this.expr(c.low)} AND ${this.expr(c.high)}`;
      case 'in':
        return `${this.expr(c.arg)} IN (${c.values.map((v) => this.expr(v)).join(', ')})`;
      case 'in_labels':
        return `${this.expr(c.arg)} IN ${this.labelSet(c.set)}`;
      case 'or':
        return `(${c.args.map((a) => this.condition(a)).join(' OR ')})`;
    }
  }

  /** The shared labels, plus the caller's namespace when the set names one (docs/labels.md). */
  labelSource(s: LabelSet): string {
    if (!s.namespace) return this.table('labels');
    return `(SELECT address, label, category, network FROM ${this.table('labels')}
      UNION ALL SELECT address, label, category, network FROM ${this.table('user_labels')} WHERE key_id = ${this.expr(s.namespace.keyId)} AND namespace = ${this.expr(s.namespace.name)})`;
  }

  labelSet(s: LabelSet): string {
    const scope = `(l.network IS NULL OR l.network = '' OR l.network = ${this.expr(s.network)})`;
    const match =
      s.kind === 'label'
        ? `(${s.substrings.map((x) => `position(lowerUTF8(l.label), ${this.expr(x)}) > 0`).join(' OR ')})`
        : `lowerUTF8(l.category) IN (${s.categories.map((x) => this.expr(x)).join(', ')})`;
    return `(SELECT l.address FROM ${this.labelSource(s)} AS l WHERE ${scope} AND ${match})`;
  }

  where(conditions: readonly Condition[]): string {
    return conditions.map((c) => this.condition(c)).join(' AND ');
  }

  /**
   * A row's USD value: LEFT JOINs to append after `FROM <table> AS t`, and
   * the value expression, as DuckDB's renderer has them: a market price at
   * the minute, else a peg (a row without minute). The joined price is
   * Nullable, so that a row without price gets NULL, never 0.
   */
  rowValue(v: RowValue): { joins: string; expr: string } {
    const prices = this.table('prices');
    const joins: string[] = [];
    const legs = v.legs.map((leg, i) => {
      const token = `upperUTF8(${this.expr(leg.token)})`;
      joins.push(`LEFT JOIN (SELECT token, minute, toNullable(usd) AS usd FROM ${prices} WHERE minute IS NOT NULL) AS __pm${i}
        ON __pm${i}.token = ${token} AND __pm${i}.minute = toStartOfMinute(t.time)`);
      joins.push(`LEFT JOIN (SELECT token, toNullable(usd) AS usd FROM ${prices} WHERE minute IS NULL) AS __pp${i} ON __pp${i}.token = ${token}`);
      const amount = this.expr(leg.amount);
      return { amount, value: `(${amount} * coalesce(__pm${i}.usd, __pp${i}.usd))` };
    });
    const expr =
      v.combine === 'first_priced'
        ? legs.length === 1
          ? legs[0]!.value
          : `coalesce(${legs.map((l) => l.value).join(', ')})`
        : `(${legs.map((l) => `if(${l.amount} = 0, 0, ${l.value})`).join(' + ')})`;
    return { joins: joins.join(' '), expr };
  }

  /** The table, with the price joins of a value when there is one. */
  from(table: string, value: { joins: string } | null): string {
    return `${this.table(table)} AS t${value ? ` ${value.joins}` : ''}`;
  }

  /** The outermost SELECT list; a double's negative zero becomes 0 first, as DuckDB's renderer makes it (docs/api.md, "Amounts"). */
  select(columns: readonly ExportColumn[]): string {
    return exportSelectList(
      columns.map((c) => (c.type === 'double' ? { ...c, sql: noNegativeZero(c.sql) } : c)),
      this.format,
    );
  }

  rows(q: RowsQuery): string {
    const value = q.value ? this.rowValue(q.value.value) : null;
    const columns: ExportColumn[] = q.columns.map((c) => ({ sql: this.expr(c.expr), name: c.name, type: c.type }));
    if (value && q.value) columns.push({ sql: value.expr, name: q.value.name, type: 'double' });
    // Always asked for, whatever `storedInOrder` says: ClickHouse keeps no scan order of its own, and
    // meets this one by reading the parts of its sorting key in order and merging them (read type
    // InOrder, token and label filters included), without sorting the result.
    const order = q.orderBy.length ? ` ORDER BY ${q.orderBy.map((k) => `t.${ident(k)}`).join(', ')}` : '';
    return `SELECT ${this.select(columns)} FROM ${this.from(q.table, value)} WHERE ${this.where(q.where)}${order}`;
  }

  aggregate(q: AggregateQuery): string {
    const inner: string[] = [];
    const outer: ExportColumn[] = [];
    const groupKeys = ['__bucket'];
    const b = q.bucket;
    const width = this.expr(b.width);
    if (b.kind === 'time') {
      const origin = this.expr(b.origin);
      inner.push(`intDiv(toUnixTimestamp64Milli(t.time) - ${origin}, ${width}) AS __bucket`);
      const startMs = (k: string) => `((${k}) * ${width} + ${origin})`;
      const iso = (k: string) => isoTime(`fromUnixTimestamp64Milli(toInt64(${startMs(k)}), 'UTC')`, false);
      if (b.edges === 'start_end') {
        outer.push({ sql: iso('__bucket'), name: b.names[0]!, type: 'string' }, { sql: iso('__bucket + 1'), name: b.names[1]!, type: 'string' });
      } else if (b.edges === 'start_epoch_seconds') {
        outer.push({ sql: `intDiv(${startMs('__bucket')}, 1000)`, name: b.names[0]!, type: 'integer' });
      } else {
        outer.push({ sql: iso('__bucket'), name: b.names[0]!, type: 'string' });
      }
    } else {
      inner.push(`intDiv(t.block_number, ${width}) AS __bucket`);
      outer.push({ sql: `__bucket * ${width}`, name: b.names[0]!, type: 'integer' });
      if (b.edges === 'start_end') outer.push({ sql: `(__bucket + 1) * ${width} - 1`, name: b.names[1]!, type: 'integer' });
    }
    q.groups.forEach((g, i) => {
      inner.push(`${this.expr(g.expr)} AS __g${i}`);
      outer.push({ sql: `__g${i}`, name: g.name, type: g.type });
      groupKeys.push(`__g${i}`);
    });
    // Each pivot key and value is computed once per row, however many pivots use it.
    const alias = innerAliases((e) => this.expr(e), inner);
    for (const p of q.pivots) {
      const token = this.expr(p.token);
      const parts = p.parts.map((part) => `if(${alias('k', part.key)} = ${token}, ${alias('v', part.value)}, 0)`);
      outer.push({ sql: `sum(${parts.join(' + ')})`, name: p.name, type: 'double' });
    }
    q.measures.forEach((m, i) => {
      inner.push(`${this.expr(m.arg)} AS __c${i}`);
      outer.push({ sql: `${m.fn === 'sum' ? 'sum' : 'avg'}(__c${i})`, name: m.name, type: 'double' });
    });
    if (q.count) outer.push({ sql: 'toInt64(count())', name: q.count, type: 'integer' });
    const value = q.value ? this.rowValue(q.value.value) : null;
    if (value && q.value) {
      inner.push(`${value.expr} AS __value`);
      // A bucket's value is known only when every event in it has a price.
      outer.push({ sql: 'if(count(__value) = count(), sum(__value), NULL)', name: q.value.name, type: 'double' });
    }
    const keys = groupKeys.join(', ');
    return `SELECT ${this.select(outer)}
    FROM (SELECT ${inner.join(', ')} FROM ${this.from(q.table, value)} WHERE ${this.where(q.where)}) AS e
    GROUP BY ${keys} ORDER BY ${keys}`;
  }

  candles(q: CandlesQuery): string {
    const w = this.expr(q.windowSeconds);
    const double = (name: string): ExportColumn => ({ sql: `c.${name}`, name, type: 'double' });
    const columns: ExportColumn[] = [
      { sql: isoTime('c.w', false), name: 'time', type: 'string' },
      double('open'),
      double('high'),
      double('low'),
      double('close'),
      double('volume'),
      { sql: 'c.trade_count', name: 'trade_count', type: 'integer' },
    ];
    return `SELECT ${this.select(columns)}
    FROM (SELECT toStartOfInterval(t.time, toIntervalSecond(${w}), 'UTC') AS w,
                 argMin(t.open, t.time) AS open, max(t.high) AS high, min(t.low) AS low, argMax(t.close, t.time) AS close,
                 round(sum(t.volume), 8) AS volume, toInt64(sum(t.trade_count)) AS trade_count
          FROM ${this.table(q.table)} AS t WHERE ${this.where(q.where)} GROUP BY w) AS c
    ORDER BY c.w`;
  }
}
