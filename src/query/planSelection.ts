/**
 * A validated request → what it selects: endpoint, network, range, format,
 * and the conditions with their bound values. Raw and aggregate plans both start here.
 */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { ChainEndpoint, Format } from '../catalog/types.ts';
import type { Store } from '../store/types.ts';
import { formatValue, normalizeQuery, numberValue, type QueryValues, stringValue } from './normalize.ts';
import { checkRangeLimit, parseRange, type QueryRange } from './range.ts';
import { pullRange, type PullRange } from './streamPosition.ts';
import { ApiError } from '../errors/apiError.ts';
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
  /** The cursor a pull with `cursor=` continues from next; absent without one. */
  readonly nextCursor?: string;
  /** A pull with nothing after its cursor yet: the answer is empty, whatever the store covers. */
  readonly nothingNew?: boolean;
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
  const network = typeof values.network === 'string' ? values.network : onlyNetwork(endpoint);
  const format = formatValue(values, endpoint.defaultFormat);
  const pull = typeof values.cursor === 'string' ? await pullOf(store, endpoint, network, values, format) : null;
  const range: QueryRange = pull
    ? { kind: 'blocks', start: pull.start, end: pull.end }
    : parseRange({
        block_start: numberValue(values, 'block_start'),
        block_end: numberValue(values, 'block_end'),
        since: stringValue(values, 'since'),
        until: stringValue(values, 'until'),
      });
  if (!unlimitedRange) checkRangeLimit(range, format, network);

  const q = new ParamBinder();
  const where: Condition[] = [{ kind: 'compare', left: column('network'), op: '=', right: q.bind(network) }];
  // Nothing after the cursor yet: no row of the cursor's own block is after it.
  if (pull?.empty) where.push({ kind: 'compare', left: column('block_number'), op: '>', right: q.bind(pull.end) });
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
    ...(pull ? { nextCursor: pull.next, nothingNew: pull.empty } : {}),
    tokenCount: filters.tokenCount,
    droppedTokens: filters.droppedTokens,
    pool: filters.pool,
    columnExpr,
  };
}

/** The range of a pull with `cursor=`: a start other than the cursor, or a time end, would contradict it. */
async function pullOf(store: Store, endpoint: ChainEndpoint, network: string, values: QueryValues, format: Format): Promise<PullRange> {
  if (values.until !== undefined) throw new ApiError('conflicting_parameters', 'cursor cannot be combined with until; give block_end to stop early', { parameters: ['cursor', 'until'] });
  return pullRange(store, endpoint, network, String(values.cursor), numberValue(values, 'block_end'), format);
}

/** The network of an endpoint whose family takes no `network` parameter (Tron, Bitcoin): its one network. */
function onlyNetwork(endpoint: ChainEndpoint): string {
  const [network] = endpoint.networks;
  if (network === undefined) throw new Error(`${endpoint.id} lists no network`);
  return network;
}
