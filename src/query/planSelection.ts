/**
 * A validated request → what it selects: endpoint, network, range, format,
 * and the conditions with their bound values. Raw and aggregate plans both start here.
 */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { ChainEndpoint, Format } from '../catalog/types.ts';
import type { Store } from '../store/types.ts';
import { normalizeQuery, type QueryValues } from './normalize.ts';
import { checkRangeLimit, parseRange, type QueryRange } from './range.ts';
import type { Condition, Expr } from '../store/query.ts';
import { buildFilters } from './plan/filters.ts';
import type { ResolvedPool } from './resolve.ts';
import { ParamBinder, column } from './plan/params.ts';

export interface Selection {
  readonly endpoint: ChainEndpoint;
  readonly network: string;
  readonly range: QueryRange;
  readonly format: Format;
  readonly values: QueryValues;
  readonly q: ParamBinder;
  readonly where: readonly Condition[];
  /** How many tokens the token filter selects; 0 without one. */
  readonly tokenCount: number;
  /** Tokens dropped as unknown under `ignore_unknown_tokens=true`. */
  readonly droppedTokens: readonly string[];
  /** The pool the request names (dex_v3: symbol0, symbol1, fee), resolved once by its filter; null on other endpoints. */
  readonly pool: ResolvedPool | null;
  /** The expression of an output column by name, under this request. */
  columnExpr(name: string): Expr;
}

export async function planSelection(store: Store, route: DataRoute, raw: Readonly<Record<string, unknown>>, keyId?: string, unlimitedRange = false): Promise<Selection> {
  const endpoint = route.endpoint;
  if (endpoint.family === 'exchange') throw new Error('planSelection serves chain endpoints');
  const values = normalizeQuery(route.params, raw);
  // normalizeQuery has checked `network` against the endpoint's networks (the
  // parameter's enum); single-network families (Tron, Bitcoin) take no network.
  const network = typeof values.network === 'string' ? values.network : endpoint.networks[0]!;
  const format = (values.format ?? endpoint.defaultFormat) as Format;
  const range = parseRange({
    block_start: values.block_start as number | undefined,
    block_end: values.block_end as number | undefined,
    since: values.since as string | undefined,
    until: values.until as string | undefined,
  });
  if (!unlimitedRange) checkRangeLimit(range, format, network);

  const q = new ParamBinder();
  const where: Condition[] = [{ kind: 'compare', left: column('network'), op: '=', right: q.bind(network) }];
  if (range.kind === 'blocks') where.push({ kind: 'between', arg: column('block_number'), low: q.bind(range.start), high: q.bind(range.end) });
  else {
    where.push(
      { kind: 'compare', left: column('time'), op: '>=', right: q.bind(range.since, 'timestamp') },
      { kind: 'compare', left: column('time'), op: '<', right: q.bind(range.until, 'timestamp') },
    );
  }
  const filters = await buildFilters(store, endpoint, network, values, q, keyId);
  where.push(...filters.where);

  const all = [...endpoint.columns, ...endpoint.verboseColumns];
  const columnExpr = (name: string): Expr => filters.overrides[name] ?? all.find((c) => c.name === name)?.expr ?? column(name);
  return {
    endpoint,
    network,
    range,
    format,
    values,
    q,
    where,
    tokenCount: filters.tokenCount,
    droppedTokens: filters.droppedTokens,
    pool: filters.pool,
    columnExpr,
  };
}
