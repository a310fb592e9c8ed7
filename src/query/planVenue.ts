/**
 * A validated exchange-venue request → one query description (rendered by
 * the store with bound parameters), its cost and its file name. Venue rows
 * come out ascending by time; candles are built by the engine from the
 * stored 1-minute candles in the same query.
 */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { FilterDef, OutputColumn, VenueEndpoint } from '../catalog/types.ts';
import type { BoundQuery, Condition, DataQuery } from '../store/query.ts';
import { normalizeAddress, splitList } from './addresses.ts';
import { coveredRangeHeader } from './coveredRange.ts';
import { computeCost } from './cost.ts';
import { formatValue, normalizeQuery, type QueryValues, stringValue } from './normalize.ts';
import type { PlanContext, QueryPlan } from './planRaw.ts';
import { ParamBinder, column } from './plan/params.ts';
import { assertVenueCoverage } from './venueCoverage.ts';
import { parseVenueRange } from './venueRange.ts';
import { venueToken } from './venueToken.ts';

/** Candle widths in seconds (docs/venues-tron-btc.md, "Candles"). */
export const WINDOW_SECONDS: Readonly<Record<string, number>> = {
  '1m': 60,
  '5m': 300,
  '15m': 900,
  '30m': 1_800,
  '1h': 3_600,
  '4h': 14_400,
  '1d': 86_400,
};

function filterCondition(param: string, f: FilterDef, value: string | number | boolean, q: ParamBinder): Condition {
  if (f.kind !== 'address') throw new Error(`venue filter kind ${f.kind} is not implemented`);
  const values = q.bindList(splitList(String(value), param).map((a) => normalizeAddress('exchange', a, param)));
  return { kind: 'or', args: f.columns.map((c) => ({ kind: 'in', arg: column(c), values })) };
}

/** The rows of a plain venue endpoint: its catalog columns over its table. */
function rowsQuery(e: VenueEndpoint, values: QueryValues, where: readonly Condition[]): { query: DataQuery; columns: OutputColumn[] } {
  const columns = e.columns.filter((c) => !(c.name === 'id' && values.skip_id === true));
  return {
    query: {
      kind: 'rows',
      table: e.table.name,
      columns: columns.map((c) => ({ name: c.name, expr: c.expr ?? column(c.name), type: c.type })),
      value: null,
      where,
      orderBy: e.table.orderBy.filter((k) => k !== 'token'),
      storedInOrder: false,
    },
    columns,
  };
}

export async function planVenue(ctx: PlanContext, route: DataRoute, raw: Readonly<Record<string, unknown>>): Promise<QueryPlan> {
  const e = route.endpoint;
  if (e.family !== 'exchange') throw new Error('planVenue serves venue endpoints');
  const values = normalizeQuery(route.params, raw);
  const format = formatValue(values, e.defaultFormat);
  const token = venueToken(values.token);
  const range = parseVenueRange(e, stringValue(values, 'since'), stringValue(values, 'until'), ctx.unlimitedRange);

  const q = new ParamBinder();
  const where: Condition[] = [
    { kind: 'compare', left: column('token'), op: '=', right: q.bind(token) },
    { kind: 'compare', left: column('time'), op: '>=', right: q.bind(range.since, 'timestamp') },
    { kind: 'compare', left: column('time'), op: '<', right: q.bind(range.until, 'timestamp') },
  ];
  for (const [param, f] of Object.entries(e.filters)) {
    const value = values[param];
    if (value !== undefined) where.push(filterCondition(param, f, value, q));
  }

  let query: DataQuery;
  let columns: readonly OutputColumn[];
  if (e.event === 'ohlcv') {
    // Candles of `window` from the stored 1-minute candles: only the minutes inside [since, until) count.
    const window = String(values.window ?? '1h');
    const seconds = WINDOW_SECONDS[window];
    // The parameter's enum is WINDOW_SECONDS's keys.
    if (seconds === undefined) throw new Error(`window ${window} has no width`);
    query = { kind: 'candles', table: e.table.name, where, windowSeconds: q.bind(seconds, 'int64') };
    columns = e.columns;
  } else {
    ({ query, columns } = rowsQuery(e, values, where));
  }
  const bound: BoundQuery = { query, params: q.params };

  await assertVenueCoverage(ctx.store, e.id, token, range);
  const cost = computeCost({ costClass: e.cost, network: e.protocol, range, aggregate: false }, ctx.blocksPerDay);
  return {
    query: bound,
    ...ctx.store.render(bound, format),
    format,
    columns: columns.map((c) => c.name),
    cost,
    basename: `${e.id.replaceAll('/', '-')}-${token}-${range.since / 1000}-${range.until / 1000}`,
    headers: coveredRangeHeader(range, { token }),
  };
}
