/** A validated raw event request → one query description (rendered by the store with bound parameters), its cost and its file name. */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { Format, OutputColumn } from '../catalog/types.ts';
import type { SqlParams, Store } from '../store/types.ts';
import type { BoundQuery } from '../store/query.ts';
import { DROPPED_TOKENS_HEADER, NEXT_CURSOR_HEADER } from '../catalog/responseHeaders.ts';
import { coveredRangeHeader } from './coveredRange.ts';
import { computeCost, type BlocksPerDay, type Cost } from './cost.ts';
import { assertChainCoverage } from './coverage.ts';
import { isPhysicallyOrdered } from '../store/coverage.ts';
import { planSelection, type Selection } from './planSelection.ts';
import { rowValue } from './plan/rowValue.ts';

/** The column `with_value=true` appends to raw rows, last. */
export const VALUE_COLUMN = 'value_usd';

export interface QueryPlan {
  /** What to answer, engine-neutral. */
  readonly query: BoundQuery;
  /** `query` rendered by the store that will run it: its own dialect and parameter values. */
  readonly sql: string;
  readonly params: SqlParams;
  readonly format: Format;
  readonly columns: readonly string[];
  readonly cost: Cost;
  /** Suggested download name, without extension. */
  readonly basename: string;
  /** Response headers the plan adds (chainq's extensions, docs/api.md). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The headers of a chain answer: the range it covers, and the tokens it dropped. */
export function selectionHeaders(sel: Selection): Record<string, string> {
  return {
    ...coveredRangeHeader(sel.range, { network: sel.network }),
    ...(sel.droppedTokens.length ? { [DROPPED_TOKENS_HEADER]: sel.droppedTokens.map(encodeURIComponent).join(',') } : {}),
    ...(sel.nextCursor ? { [NEXT_CURSOR_HEADER]: sel.nextCursor } : {}),
  };
}

export interface PlanContext {
  readonly store: Store;
  readonly blocksPerDay?: BlocksPerDay;
  /** The caller's key id: whose label namespaces `wallet_namespace` may name. */
  readonly keyId?: string;
}

export function outputColumns(sel: Selection): OutputColumn[] {
  const withTime = sel.values.with_time !== false;
  const cols = sel.endpoint.columns.filter((c) => withTime || c.name !== 'time');
  return sel.values.verbose === true ? [...cols, ...sel.endpoint.verboseColumns] : cols;
}

export function rangeText(sel: Selection): string {
  return sel.range.kind === 'blocks' ? `${sel.range.start}-${sel.range.end}` : `${sel.range.since / 1000}-${sel.range.until / 1000}`;
}

export async function planRaw(ctx: PlanContext, route: DataRoute, raw: Readonly<Record<string, unknown>>): Promise<QueryPlan> {
  const sel = await planSelection(ctx.store, route, raw, ctx.keyId);
  const e = sel.endpoint;
  const cols = outputColumns(sel);
  const value = sel.values.with_value === true ? rowValue(e, sel.columnExpr) : null;
  if (!sel.nothingNew) await assertChainCoverage(ctx.store, e.id, sel.network, sel.range);
  // Sorting holds the whole result in memory before the first byte; rows that
  // sit in order already are streamed as they are scanned. A join (prices)
  // does not promise to keep the scan's order, so it always sorts.
  const inOrder = !value && (await isPhysicallyOrdered(ctx.store, e.id, sel.network));
  const query: BoundQuery = {
    query: {
      kind: 'rows',
      table: e.table.name,
      columns: cols.map((c) => ({ name: c.name, expr: sel.columnExpr(c.name), type: c.type })),
      value: value ? { name: VALUE_COLUMN, value } : null,
      where: sel.where,
      orderBy: e.table.orderBy.filter((k) => k !== 'network'),
      storedInOrder: inOrder,
    },
    params: sel.q.params,
  };
  const cost = computeCost({ costClass: e.cost, network: sel.network, range: sel.range, aggregate: false }, ctx.blocksPerDay);
  return {
    query,
    ...ctx.store.render(query, sel.format),
    format: sel.format,
    columns: [...cols.map((c) => c.name), ...(value ? [VALUE_COLUMN] : [])],
    cost,
    basename: `${e.id.replaceAll('/', '-')}-${sel.network}-${rangeText(sel)}`,
    headers: selectionHeaders(sel),
  };
}
