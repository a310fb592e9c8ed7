/**
 * DuckDB's rendering of an engine-neutral query description: SQL text with
 * `$name` placeholders, and the parameter values DuckDB binds to them. The
 * dataset table is aliased `t`; request values never enter the text.
 */
import type { ColumnExpr, ColumnType } from '../../catalog/types.ts';
import type { AggregateQuery, BoundQuery, CandlesQuery, Condition, Expr, LabelSet, QueryParams, RowValue, RowsQuery } from '../query.ts';
import type { SqlParams } from '../types.ts';
import { innerAliases } from '../innerAliases.ts';

const ISO_SECONDS = `'%Y-%m-%dT%H:%M:%SZ'`;
const ISO_MILLIS = `'%Y-%m-%dT%H:%M:%S.%gZ'`;
const NULL_TYPES: Readonly<Record<ColumnType, string>> = { integer: 'INTEGER', double: 'DOUBLE', string: 'VARCHAR', boolean: 'BOOLEAN' };

/** Quotes an identifier that comes from the catalog (never from a request). */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * A double as answers carry it: negative zero becomes 0 (docs/api.md, "Amounts"). A float
 * computed or read at ingestion can be -0.0 (a flat position's PnL, a source's "-0.0"), and
 * each writer would print it as `-0.0`. abs() keeps the column's type; `x + 0.0` would do the
 * same for DOUBLE but turn an integer column into a DECIMAL.
 */
const noNegativeZero = (sql: string): string => `(CASE WHEN ${sql} = 0 THEN abs(${sql}) ELSE ${sql} END)`;
/** An output column's SQL, with negative zero gone when it is a double. */
const output = (sql: string, type: ColumnType): string => (type === 'double' ? noNegativeZero(sql) : sql);

export function renderDuckDb(bound: BoundQuery): { sql: string; params: SqlParams } {
  const r = new Renderer(bound.params);
  const q = bound.query;
  const sql = q.kind === 'rows' ? r.rows(q) : q.kind === 'aggregate' ? r.aggregate(q) : r.candles(q);
  return { sql, params: duckDbParams(bound.params) };
}

/** Timestamps are bound as DuckDB TIMESTAMP text (UTC) and cast where they are used. */
function duckDbParams(params: QueryParams): SqlParams {
  const out: SqlParams = {};
  for (const [name, p] of Object.entries(params)) {
    out[name] = p.type === 'timestamp' && typeof p.value === 'number' ? new Date(p.value).toISOString().replace('T', ' ').replace('Z', '') : p.value;
  }
  return out;
}

/** Whether a condition reads another table (a label set): DuckDB plans it as a join. */
function joins(c: Condition): boolean {
  return c.kind === 'in_labels' || (c.kind === 'or' && c.args.some(joins));
}

class Renderer {
  /**
   * Set while rendering rows that stream in the table's order without ORDER
   * BY: value lists are then written so that DuckDB keeps them a filter of
   * the scan (see `inList`).
   */
  private scanOrder = false;

  constructor(private readonly params: QueryParams) {}

  expr(e: Expr | ColumnExpr): string {
    switch (e.kind) {
      case 'column':
        return `t.${ident(e.name)}`;
      case 'literal':
        if (e.value === null) return `NULL::${NULL_TYPES[e.type]}`;
        return typeof e.value === 'number' ? String(e.value) : quote(e.value);
      case 'negate':
        return `-(${this.expr(e.arg)})`;
      case 'if':
        return `CASE WHEN ${this.expr(e.left)} ${e.op} ${this.expr(e.right)} THEN ${this.expr(e.then)} ELSE ${this.expr(e.else)} END`;
      case 'iso_time':
        return `strftime(${this.expr(e.arg)}, ${e.millis ? ISO_MILLIS : ISO_SECONDS})`;
      case 'decimal_text':
        return `CAST(${this.expr(e.arg)} AS VARCHAR)`;
      case 'param': {
        const p = this.params[e.name];
        if (!p) throw new Error(`query uses unbound parameter ${e.name}`);
        return p.type === 'timestamp' ? `CAST($${e.name} AS TIMESTAMP)` : `$${e.name}`;
      }
      case 'rescale':
        return `(${this.expr(e.amount)} * power(10, ${this.expr(e.decimals)}::INTEGER - ${this.expr(e.to)}))`;
      case 'when_in':
        return `(CASE WHEN ${this.inList(e.arg, e.values)} THEN ${this.expr(e.then)} ELSE ${this.expr(e.otherwise)} END)`;
    }
  }

  /**
   * `arg` equals one of `values`. DuckDB turns an IN list of a few constants
   * or more into a hash join against the list (faster than comparing each
   * value), and a plan with a join no longer keeps the scan's order: its
   * parallel COPY then interleaves the threads' rows (22 tokens over 10,000
   * ETH blocks came out with 26 to 39 rows before their predecessor, a
   * different order each time). Where the order rests on the scan, several
   * values are a list lookup instead, which stays a filter of the scan.
   */
  inList(arg: Expr, values: readonly Expr[]): string {
    const a = this.expr(arg);
    if (values.length === 1) return `${a} = ${this.expr(values[0]!)}`;
    const list = values.map((v) => this.expr(v)).join(', ');
    return this.scanOrder ? `list_contains([${list}], ${a})` : `${a} IN (${list})`;
  }

  /** An integer parameter in integer arithmetic (DuckDB would otherwise infer a number as DOUBLE). */
  bigint(e: Expr): string {
    return `CAST(${this.expr(e)} AS BIGINT)`;
  }

  condition(c: Condition): string {
    switch (c.kind) {
      case 'compare':
        return `${this.expr(c.left)} ${c.op} ${this.expr(c.right)}`;
      case 'between':
        return `${this.expr(c.arg)} BETWEEN ${this.expr(c.low)} AND ${this.expr(c.high)}`;
      case 'in':
        return this.inList(c.arg, c.values);
      case 'in_labels':
        return `${this.expr(c.arg)} IN ${this.labelSet(c.set)}`;
      case 'or':
        return `(${c.args.map((a) => this.condition(a)).join(' OR ')})`;
    }
  }

  /** The shared labels, plus the caller's namespace when the set names one (docs/labels.md). */
  labelSource(s: LabelSet): string {
    if (!s.namespace) return 'labels';
    return `(SELECT address, label, category, network FROM labels
      UNION ALL SELECT address, label, category, network FROM user_labels WHERE key_id = ${this.expr(s.namespace.keyId)} AND namespace = ${this.expr(s.namespace.name)})`;
  }

  labelSet(s: LabelSet): string {
    const scope = `(l.network IS NULL OR l.network = '' OR l.network = ${this.expr(s.network)})`;
    const match =
      s.kind === 'label' ? `(${s.substrings.map((x) => `contains(lower(l.label), ${this.expr(x)})`).join(' OR ')})` : `lower(l.category) IN (${s.categories.map((x) => this.expr(x)).join(', ')})`;
    return `(SELECT l.address FROM ${this.labelSource(s)} l WHERE ${scope} AND ${match})`;
  }

  where(conditions: readonly Condition[]): string {
    return conditions.map((c) => this.condition(c)).join(' AND ');
  }

  /**
   * A row's USD value: LEFT JOINs to append after `FROM <table> t`, and the
   * value expression. A market price at the minute, else a peg (a row
   * without minute, for stablecoins with no market of their own).
   */
  rowValue(v: RowValue): { joins: string; expr: string } {
    const minute = `date_trunc('minute', t.time)`;
    const joins: string[] = [];
    const legs = v.legs.map((leg, i) => {
      const token = `upper(${this.expr(leg.token)})`;
      joins.push(`LEFT JOIN prices __pm${i} ON __pm${i}.token = ${token} AND __pm${i}.minute = ${minute}`);
      joins.push(`LEFT JOIN prices __pp${i} ON __pp${i}.token = ${token} AND __pp${i}.minute IS NULL`);
      const amount = this.expr(leg.amount);
      return { amount, value: `(${amount} * coalesce(__pm${i}.usd, __pp${i}.usd))` };
    });
    const expr =
      v.combine === 'first_priced'
        ? legs.length === 1
          ? legs[0]!.value
          : `coalesce(${legs.map((l) => l.value).join(', ')})`
        : `(${legs.map((l) => `CASE WHEN ${l.amount} = 0 THEN 0 ELSE ${l.value} END`).join(' + ')})`;
    return { joins: joins.join(' '), expr };
  }

  /**
   * Rows stored in order stream as scanned, without a sort (which would hold
   * the whole result before the first byte), only when DuckDB promises to
   * keep the scan's order: a single table filtered by plain conditions
   * (`preserve_insertion_order`, on by default; DuckDB's documentation,
   * "Order Preservation"). A label set or a USD value joins another table,
   * and a join promises no order: those rows are sorted.
   */
  rows(q: RowsQuery): string {
    const sorted = q.orderBy.length > 0 && (!q.storedInOrder || q.value !== null || q.where.some(joins));
    this.scanOrder = q.orderBy.length > 0 && !sorted;
    const value = q.value ? this.rowValue(q.value.value) : null;
    const select = [...q.columns.map((c) => `${output(this.expr(c.expr), c.type)} AS ${ident(c.name)}`), ...(value && q.value ? [`${noNegativeZero(value.expr)} AS ${ident(q.value.name)}`] : [])].join(
      ', ',
    );
    const from = `${q.table} t${value ? ` ${value.joins}` : ''}`;
    const order = sorted ? ` ORDER BY ${q.orderBy.map((k) => `t.${ident(k)}`).join(', ')}` : '';
    return `SELECT ${select} FROM ${from} WHERE ${this.where(q.where)}${order}`;
  }

  /**
   * The inner SELECT computes, per selected row, its bucket number and the
   * values the aggregates need; the outer one groups by bucket (and the group
   * columns) and renders the bucket edges.
   */
  aggregate(q: AggregateQuery): string {
    const inner: string[] = [];
    const outer: { sql: string; name: string }[] = [];
    const groupKeys = ['__bucket'];
    const b = q.bucket;
    const width = this.bigint(b.width);
    if (b.kind === 'time') {
      const origin = this.bigint(b.origin);
      // Every stored time is after the origin, so // floors.
      inner.push(`(epoch_ms(t.time) - ${origin}) // ${width} AS __bucket`);
      const startMs = (k: string) => `((${k}) * ${width} + ${origin})`;
      const iso = (k: string) => `strftime(make_timestamp(${startMs(k)} * 1000), ${ISO_SECONDS})`;
      if (b.edges === 'start_end') outer.push({ sql: iso('__bucket'), name: b.names[0]! }, { sql: iso('__bucket + 1'), name: b.names[1]! });
      else outer.push({ sql: b.edges === 'start_epoch_seconds' ? `${startMs('__bucket')} // 1000` : iso('__bucket'), name: b.names[0]! });
    } else {
      inner.push(`t.block_number // ${width} AS __bucket`);
      outer.push({ sql: `__bucket * ${width}`, name: b.names[0]! });
      if (b.edges === 'start_end') outer.push({ sql: `(__bucket + 1) * ${width} - 1`, name: b.names[1]! });
    }

    q.groups.forEach((g, i) => {
      inner.push(`${this.expr(g.expr)} AS __g${i}`);
      outer.push({ sql: output(`__g${i}`, g.type), name: g.name });
      groupKeys.push(`__g${i}`);
    });

    // Each pivot key and value is computed once per row, however many pivots use it.
    const alias = innerAliases((e) => this.expr(e), inner);
    for (const p of q.pivots) {
      const token = this.expr(p.token);
      const parts = p.parts.map((part) => `CASE WHEN ${alias('k', part.key)} = ${token} THEN ${alias('v', part.value)} ELSE 0 END`);
      outer.push({ sql: noNegativeZero(`sum(${parts.join(' + ')})`), name: p.name });
    }

    q.measures.forEach((m, i) => {
      inner.push(`${this.expr(m.arg)} AS __c${i}`);
      outer.push({ sql: noNegativeZero(`${m.fn === 'sum' ? 'sum' : 'avg'}(__c${i})`), name: m.name });
    });
    if (q.count) outer.push({ sql: 'count(*)', name: q.count });

    const value = q.value ? this.rowValue(q.value.value) : null;
    if (value && q.value) {
      inner.push(`${value.expr} AS __value`);
      // A bucket's value is known only when every event in it has a price.
      outer.push({ sql: noNegativeZero(`CASE WHEN count(__value) = count(*) THEN sum(__value) END`), name: q.value.name });
    }

    const from = `${q.table} t${value ? ` ${value.joins}` : ''}`;
    const keys = groupKeys.join(', ');
    return `SELECT ${outer.map((o) => `${o.sql} AS ${ident(o.name)}`).join(', ')}
    FROM (SELECT ${inner.join(', ')} FROM ${from} WHERE ${this.where(q.where)}) e
    GROUP BY ${keys} ORDER BY ${keys}`;
  }

  /**
   * Open of the first minute, highest high, lowest low, close of the last
   * minute, volume and trade count summed; a window is labelled with its start.
   */
  candles(q: CandlesQuery): string {
    const doubles = ['open', 'high', 'low', 'close', 'volume'].map((name) => `${noNegativeZero(`c.${name}`)} AS ${ident(name)}`).join(', ');
    return `SELECT strftime(c.w, ${ISO_SECONDS}) AS "time", ${doubles}, c.trade_count
    FROM (SELECT time_bucket(to_seconds(${this.bigint(q.windowSeconds)}), t.time, TIMESTAMP '1970-01-01') AS w,
                 arg_min(t.open, t.time) AS open, max(t.high) AS high, min(t.low) AS low, arg_max(t.close, t.time) AS close,
                 -- Rounded to 1e-8 so that binary summation noise does not show.
                 round(sum(t.volume), 8) AS volume, CAST(sum(t.trade_count) AS BIGINT) AS trade_count
          FROM ${q.table} t WHERE ${this.where(q.where)} GROUP BY 1) c
    ORDER BY c.w`;
  }
}
