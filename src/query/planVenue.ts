/**
 * A validated exchange-venue request → one parameterized SQL query, its cost
 * and its file name. Venue rows come out ascending by time; candles are
 * built by the engine from the stored 1-minute candles in the same query.
 */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { FilterDef, Format, OutputColumn, VenueEndpoint } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { normalizeAddress, splitList } from './addresses.ts';
import { coveredRangeHeader } from './coveredRange.ts';
import { computeCost } from './cost.ts';
import { normalizeQuery, type QueryValues } from './normalize.ts';
import type { PlanContext, QueryPlan } from './planRaw.ts';
import { SqlBuilder, ident } from './sql/builder.ts';
import { toSqlTimestamp } from './time.ts';
import { assertVenueCoverage } from './venueCoverage.ts';
import { parseVenueRange } from './venueRange.ts';

/** Candle widths in seconds (interface.md §4.6). */
export const WINDOW_SECONDS: Readonly<Record<string, number>> = {
  '1m': 60, '5m': 300, '15m': 900, '30m': 1_800, '1h': 3_600, '4h': 14_400, '1d': 86_400,
};

const TOKEN = /^[A-Z0-9]{1,20}$/;

export function venueToken(value: unknown): string {
  const token = String(value ?? '').trim().toUpperCase();
  if (!TOKEN.test(token)) throw new ApiError('invalid_parameter', `token='${String(value)}' is not a token symbol such as BTC`, { parameter: 'token' });
  return token;
}

function filterCondition(param: string, f: FilterDef, value: string | number | boolean, q: SqlBuilder): string {
  if (f.kind !== 'address') throw new Error(`venue filter kind ${f.kind} is not implemented`);
  const inList = q.bindList(splitList(String(value), param).map((a) => normalizeAddress('exchange', a, param)));
  return `(${f.columns.map((c) => `t.${ident(c)} IN ${inList}`).join(' OR ')})`;
}

/** The rows of a plain venue endpoint: its catalog columns over its table. */
function rowsSql(e: VenueEndpoint, values: QueryValues, where: readonly string[]): { sql: string; columns: OutputColumn[] } {
  const columns = e.columns.filter((c) => !(c.name === 'id' && values.skip_id === true));
  const select = columns.map((c) => `${c.sql ?? `t.${ident(c.name)}`} AS ${ident(c.name)}`).join(', ');
  const order = e.table.orderBy.filter((k) => k !== 'token').map((k) => `t.${ident(k)}`).join(', ');
  return { sql: `SELECT ${select} FROM ${e.table.name} t WHERE ${where.join(' AND ')} ORDER BY ${order}`, columns };
}

/**
 * Candles of `window` from 1-minute candles: windows aligned to the Unix
 * epoch, open of the first minute, highest high, lowest low, close of the
 * last minute, volume (to 8 decimals) and trade count summed. Only the minutes inside
 * [since, until) count; a window is labelled with its start.
 */
function candlesSql(e: VenueEndpoint, windowSeconds: number, where: readonly string[], q: SqlBuilder): string {
  const w = q.bind(windowSeconds);
  return `SELECT strftime(c.w, '%Y-%m-%dT%H:%M:%SZ') AS "time", c.open, c.high, c.low, c.close, c.volume, c.trade_count
    FROM (SELECT time_bucket(to_seconds(CAST(${w} AS BIGINT)), t.time, TIMESTAMP '1970-01-01') AS w,
                 arg_min(t.open, t.time) AS open, max(t.high) AS high, min(t.low) AS low, arg_max(t.close, t.time) AS close,
                 -- Rounded to 1e-8 so that binary summation noise does not show.
                 round(sum(t.volume), 8) AS volume, CAST(sum(t.trade_count) AS BIGINT) AS trade_count
          FROM ${e.table.name} t WHERE ${where.join(' AND ')} GROUP BY 1) c
    ORDER BY c.w`;
}

export async function planVenue(ctx: PlanContext, route: DataRoute, raw: Readonly<Record<string, unknown>>): Promise<QueryPlan> {
  const e = route.endpoint;
  if (e.family !== 'exchange') throw new Error('planVenue serves venue endpoints');
  const values = normalizeQuery(route.params, raw);
  const format = (values.format ?? e.defaultFormat) as Format;
  const token = venueToken(values.token);
  const range = parseVenueRange(e, values.since as string | undefined, values.until as string | undefined);

  const q = new SqlBuilder();
  const where = [
    `t.token = ${q.bind(token)}`,
    `t.time >= CAST(${q.bind(toSqlTimestamp(range.since))} AS TIMESTAMP)`,
    `t.time < CAST(${q.bind(toSqlTimestamp(range.until))} AS TIMESTAMP)`,
  ];
  for (const [param, f] of Object.entries(e.filters)) {
    const value = values[param];
    if (value !== undefined) where.push(filterCondition(param, f, value, q));
  }

  let sql: string;
  let columns: readonly OutputColumn[];
  if (e.event === 'ohlcv') {
    const window = String(values.window ?? '1h');
    sql = candlesSql(e, WINDOW_SECONDS[window]!, where, q);
    columns = e.columns;
  } else {
    ({ sql, columns } = rowsSql(e, values, where));
  }

  await assertVenueCoverage(ctx.store, e.id, token, range);
  const cost = computeCost({ costClass: e.cost, network: e.protocol, range, aggregate: false }, ctx.blocksPerDay);
  return {
    sql,
    params: q.params,
    format,
    columns: columns.map((c) => c.name),
    cost,
    basename: `${e.id.replaceAll('/', '-')}-${token}-${range.since / 1000}-${range.until / 1000}`,
    headers: coveredRangeHeader(range, { token }),
  };
}
