/**
 * A validated aggregate request → the description of one query that buckets
 * in the engine (rendered by the store with bound parameters), its cost and its file name. It starts from the same selection
 * as the raw endpoint, so it takes every filter the raw endpoint takes.
 */
import { acceptsWithValue, type GroupBy } from '../catalog/derive/aggregate.ts';
import type { DataRoute } from '../catalog/derive/routes.ts';
import { parseBucketing } from './bucketing.ts';
import { computeCost } from './cost.ts';
import { assertChainCoverage } from './coverage.ts';
import { rangeText, selectionHeaders, type PlanContext, type QueryPlan } from './planRaw.ts';
import { planSelection, type Selection } from './planSelection.ts';
import { aggregateQuery } from './plan/aggregateQuery.ts';
import { rowValue } from './plan/rowValue.ts';
import { stringValue } from './normalize.ts';
import type { BoundQuery } from '../store/query.ts';

/** The tokens a pivot expands over: the pool's two tokens (resolved by the selection's pool filter), in the order the request named them. */
function pivotTokens(sel: Selection): string[] {
  const e = sel.endpoint;
  if (!e.aggregate?.pivot_columns?.length) return [];
  if (!sel.pool) throw new Error(`${e.id}: pivot columns need a pool filter to know their tokens`);
  return [...sel.pool.requestOrder];
}

export async function planAggregate(ctx: PlanContext, route: DataRoute, raw: Readonly<Record<string, unknown>>): Promise<QueryPlan> {
  const sel = await planSelection(ctx.store, route, raw, ctx.keyId, ctx.unlimitedRange);
  const e = sel.endpoint;
  if (!e.aggregate) throw new Error(`${e.id} has no aggregate`);
  const groupBy: GroupBy = sel.values.group_by === 'block_number' ? 'block_number' : 'time';
  const bucketing = parseBucketing(e, groupBy, stringValue(sel.values, 'period'));
  const withValue = acceptsWithValue(e) && e.aggregate.valued && sel.values.with_value === true;
  const { query, columns } = aggregateQuery({
    endpoint: e,
    where: sel.where,
    columnExpr: sel.columnExpr,
    q: sel.q,
    bucketing,
    pivotTokens: pivotTokens(sel),
    // Amounts of different tokens do not add up: several tokens split each bucket by token.
    splitByToken: sel.tokenCount > 1,
    value: withValue ? rowValue(e, sel.columnExpr) : null,
    epochSecondsTime: e.family === 'btc' && sel.format !== 'csv',
  });
  await assertChainCoverage(ctx.store, e.id, sel.network, sel.range);
  const cost = computeCost({ costClass: e.cost, network: sel.network, range: sel.range, aggregate: true }, ctx.blocksPerDay);
  const bound: BoundQuery = { query, params: sel.q.params };
  return {
    query: bound,
    ...ctx.store.render(bound, sel.format),
    format: sel.format,
    columns,
    cost,
    basename: `${e.id.replaceAll('/', '-')}-aggregate-${sel.network}-${groupBy}-${bucketing.period}-${rangeText(sel)}`,
    headers: selectionHeaders(sel),
  };
}
