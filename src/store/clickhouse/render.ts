/**
 * ClickHouse's rendering of an engine-neutral query description: SQL text
 * with typed `{name:Type}` placeholders and the values ClickHouse binds to
 * them (`query_params`). The dataset table is aliased `t`; request values
 * never enter the text. Times are `DateTime64(3, 'UTC')`.
 *
 * Not rendered yet: the USD value (`with_value`), whose price joins need
 * ClickHouse's join semantics worked out (docs/storage.md).
 */
import type { ColumnExpr, ColumnType, StoredType } from '../../catalog/types.ts';
import type {
  AggregateQuery, BoundQuery, CandlesQuery, Condition, Expr, LabelSet, ParamType, QueryParams, RowsQuery,
} from '../query.ts';

/** ClickHouse's type for each catalog column type; raw on-chain integers stay exact. */
export const CLICKHOUSE_TYPES: Readonly<Record<StoredType, string>> = {
  string: 'String', boolean: 'Bool', uint8: 'UInt8', int32: 'Int32', int64: 'Int64', uint64: 'UInt64',
  float64: 'Float64', timestamp: `DateTime64(3, 'UTC')`, uint256: 'UInt256', int256: 'Int256',
};

const PARAM_TYPES: Readonly<Record<ParamType, string>> = {
  string: 'String', int64: 'Int64', float64: 'Float64', boolean: 'Bool', timestamp: `DateTime64(3, 'UTC')`,
};
const NULL_TYPES: Readonly<Record<ColumnType, string>> = { integer: 'Nullable(Int32)', double: 'Nullable(Float64)', string: 'Nullable(String)', boolean: 'Nullable(Bool)' };

/** Quotes an identifier that comes from the catalog (never from a request). */
export const ident = (name: string): string => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** Parameter values as ClickHouse parses them from text: timestamps as `YYYY-MM-DD hh:mm:ss.mmm` UTC. */
export type ClickHouseParams = Record<string, string | number | boolean | null>;

export interface ClickHouseRenderOptions {
  /** The database holding the store's tables; unqualified names when absent. */
  readonly database?: string;
}

export function renderClickHouse(bound: BoundQuery, opts: ClickHouseRenderOptions = {}): { sql: string; params: ClickHouseParams } {
  const r = new Renderer(bound.params, opts.database ?? null);
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

/** ISO 8601 UTC text of a DateTime64 expression, to the second or the millisecond. */
function isoTime(sql: string, millis: boolean): string {
  const seconds = `formatDateTime(${sql}, '%Y-%m-%dT%H:%i:%S', 'UTC')`;
  if (!millis) return `concat(${seconds}, 'Z')`;
  return `concat(${seconds}, '.', leftPad(toString(toUnixTimestamp64Milli(${sql}) % 1000), 3, '0'), 'Z')`;
}

class Renderer {
  constructor(private readonly params: QueryParams, private readonly database: string | null) {}

  /** One of the store's tables, by its catalog or system name. */
  table(name: string): string {
    return this.database === null ? ident(name) : `${ident(this.database)}.${ident(name)}`;
  }

  expr(e: Expr | ColumnExpr): string {
    switch (e.kind) {
      case 'column': return `t.${ident(e.name)}`;
      case 'literal':
        if (e.value === null) return `CAST(NULL, '${NULL_TYPES[e.type]}')`;
        return typeof e.value === 'number' ? String(e.value) : quote(e.value);
      case 'negate': return `-(${this.expr(e.arg)})`;
      case 'if': return `if(${this.expr(e.left)} ${e.op} ${this.expr(e.right)}, ${this.expr(e.then)}, ${this.expr(e.else)})`;
      case 'iso_time': return isoTime(this.expr(e.arg), e.millis);
      case 'param': {
        const p = this.params[e.name];
        if (!p) throw new Error(`query uses unbound parameter ${e.name}`);
        return `{${e.name}:${PARAM_TYPES[p.type]}}`;
      }
      case 'rescale': return `(${this.expr(e.amount)} * pow(10, toInt32(${this.expr(e.decimals)}) - ${this.expr(e.to)}))`;
      case 'when_in': return `(CASE WHEN ${this.expr(e.arg)} IN (${e.values.map((v) => this.expr(v)).join(', ')}) THEN ${this.expr(e.then)} ELSE ${this.expr(e.otherwise)} END)`;
    }
  }

  condition(c: Condition): string {
    switch (c.kind) {
      case 'compare': return `${this.expr(c.left)} ${c.op} ${this.expr(c.right)}`;
      case 'between': return `${this.expr(c.arg)} BETWEEN ${this.expr(c.low)} AND ${this.expr(c.high)}`;
      case 'in': return `${this.expr(c.arg)} IN (${c.values.map((v) => this.expr(v)).join(', ')})`;
      case 'in_labels': return `${this.expr(c.arg)} IN ${this.labelSet(c.set)}`;
      case 'or': return `(${c.args.map((a) => this.condition(a)).join(' OR ')})`;
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
    const match = s.kind === 'label'
      ? `(${s.substrings.map((x) => `position(lower(l.label), ${this.expr(x)}) > 0`).join(' OR ')})`
      : `lower(l.category) IN (${s.categories.map((x) => this.expr(x)).join(', ')})`;
    return `(SELECT l.address FROM ${this.labelSource(s)} AS l WHERE ${scope} AND ${match})`;
  }

  where(conditions: readonly Condition[]): string {
    return conditions.map((c) => this.condition(c)).join(' AND ');
  }

  rows(q: RowsQuery): string {
    if (q.value) throw new Error('with_value is not rendered for ClickHouse yet');
    const select = q.columns.map((c) => `${this.expr(c.expr)} AS ${ident(c.name)}`).join(', ');
    const order = q.orderBy.length ? ` ORDER BY ${q.orderBy.map((k) => `t.${ident(k)}`).join(', ')}` : '';
    return `SELECT ${select} FROM ${this.table(q.table)} AS t WHERE ${this.where(q.where)}${order}`;
  }

  aggregate(q: AggregateQuery): string {
    if (q.value) throw new Error('with_value is not rendered for ClickHouse yet');
    const inner: string[] = [];
    const outer: { sql: string; name: string }[] = [];
    const groupKeys = ['__bucket'];
    const b = q.bucket;
    const width = this.expr(b.width);
    if (b.kind === 'time') {
      const origin = this.expr(b.origin);
      inner.push(`intDiv(toUnixTimestamp64Milli(t.time) - ${origin}, ${width}) AS __bucket`);
      const startMs = (k: string) => `((${k}) * ${width} + ${origin})`;
      const iso = (k: string) => isoTime(`fromUnixTimestamp64Milli(toInt64(${startMs(k)}), 'UTC')`, false);
      if (b.edges === 'start_end') outer.push({ sql: iso('__bucket'), name: b.names[0]! }, { sql: iso('__bucket + 1'), name: b.names[1]! });
      else outer.push({ sql: b.edges === 'start_epoch_seconds' ? `intDiv(${startMs('__bucket')}, 1000)` : iso('__bucket'), name: b.names[0]! });
    } else {
      inner.push(`intDiv(t.block_number, ${width}) AS __bucket`);
      outer.push({ sql: `__bucket * ${width}`, name: b.names[0]! });
      if (b.edges === 'start_end') outer.push({ sql: `(__bucket + 1) * ${width} - 1`, name: b.names[1]! });
    }
    q.groups.forEach((g, i) => {
      inner.push(`${this.expr(g.expr)} AS __g${i}`);
      outer.push({ sql: `__g${i}`, name: g.name });
      groupKeys.push(`__g${i}`);
    });
    const innerAlias = new Map<string, string>();
    const alias = (prefix: string, e: Expr): string => {
      const sql = this.expr(e);
      let a = innerAlias.get(`${prefix}:${sql}`);
      if (!a) {
        a = `__${prefix}${[...innerAlias.keys()].filter((k) => k.startsWith(`${prefix}:`)).length}`;
        innerAlias.set(`${prefix}:${sql}`, a);
        inner.push(`${sql} AS ${a}`);
      }
      return a;
    };
    for (const p of q.pivots) {
      const token = this.expr(p.token);
      const parts = p.parts.map((part) => `if(${alias('k', part.key)} = ${token}, ${alias('v', part.value)}, 0)`);
      outer.push({ sql: `sum(${parts.join(' + ')})`, name: p.name });
    }
    q.measures.forEach((m, i) => {
      inner.push(`${this.expr(m.arg)} AS __c${i}`);
      outer.push({ sql: `${m.fn === 'sum' ? 'sum' : 'avg'}(__c${i})`, name: m.name });
    });
    if (q.count) outer.push({ sql: 'count()', name: q.count });
    const keys = groupKeys.join(', ');
    return `SELECT ${outer.map((o) => `${o.sql} AS ${ident(o.name)}`).join(', ')}
    FROM (SELECT ${inner.join(', ')} FROM ${this.table(q.table)} AS t WHERE ${this.where(q.where)}) AS e
    GROUP BY ${keys} ORDER BY ${keys}`;
  }

  candles(q: CandlesQuery): string {
    const w = this.expr(q.windowSeconds);
    return `SELECT ${isoTime('c.w', false)} AS \`time\`, c.open AS open, c.high AS high, c.low AS low, c.close AS close, c.volume AS volume, c.trade_count AS trade_count
    FROM (SELECT toStartOfInterval(t.time, toIntervalSecond(${w}), 'UTC') AS w,
                 argMin(t.open, t.time) AS open, max(t.high) AS high, min(t.low) AS low, argMax(t.close, t.time) AS close,
                 round(sum(t.volume), 8) AS volume, toInt64(sum(t.trade_count)) AS trade_count
          FROM ${this.table(q.table)} AS t WHERE ${this.where(q.where)} GROUP BY w) AS c
    ORDER BY c.w`;
  }
}
