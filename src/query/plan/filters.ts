/**
 * Catalog filters → conditions of the query description. Every user value
 * is bound; labels and categories select addresses from the labels table.
 */
import type { ChainEndpoint, FilterDef } from '../../catalog/types.ts';
import { ApiError } from '../../errors/apiError.ts';
import type { Store } from '../../store/types.ts';
import { isEvmAddress, normalizeAddress, splitList } from '../addresses.ts';
import type { QueryValues } from '../normalize.ts';
import { resolvePool, resolveTokenSymbol, resolveTronToken, tokenDecimals, type ResolvedPool } from '../resolve.ts';
import type { Condition, Expr, LabelNamespace } from '../../store/query.ts';
import { column, integer, type ParamBinder } from './params.ts';
import { namespaceExists, namespaceName, notFound } from '../../reference/userLabels.ts';

/**
 * The caller's own namespace under `wallet_namespace`, read beside the
 * shared labels by the label and category filters (docs/labels.md). Only the
 * caller's key id selects it, so another key's namespace is not found rather than read.
 */
async function labelNamespace(store: Store, namespace: unknown, keyId: string | undefined): Promise<{ keyId: string; name: string } | null> {
  if (typeof namespace !== 'string') return null;
  const name = namespaceName(namespace);
  if (!keyId || !(await namespaceExists(store, keyId, name))) throw notFound(name);
  return { keyId, name };
}

export interface FilterResult {
  readonly where: Condition[];
  /** Output columns whose expression changes with the request (amount under custom decimals). */
  readonly overrides: Record<string, Expr>;
  /** How many tokens the token filter selects (0 without one); several split aggregates by token. */
  readonly tokenCount: number;
  /** Tokens dropped as unknown under `ignore_unknown_tokens=true`, as the caller spelled them. */
  readonly droppedTokens: readonly string[];
  /** The pool the pool filter resolved (symbol0, symbol1, fee), for those who need its tokens; null without one. */
  readonly pool: ResolvedPool | null;
}

const c = column;
const anyColumn = (columns: readonly string[], condition: (col: Expr) => Condition): Condition => ({ kind: 'or', args: columns.map((col) => condition(c(col))) });

/** One request's filters being turned into conditions: its inputs, and what the conditions gather besides themselves. */
interface FilterContext {
  readonly store: Store;
  readonly endpoint: ChainEndpoint;
  readonly network: string;
  readonly values: QueryValues;
  readonly q: ParamBinder;
  /** Output columns whose expression the request changes (FilterResult.overrides). */
  readonly overrides: Record<string, Expr>;
  readonly droppedTokens: string[];
  tokenCount: number;
  pool: ResolvedPool | null;
  /** The network, bound once by the first label or category filter. */
  labelScope(): Expr;
  /** The caller's namespace, bound once by the first label or category filter; null without one. */
  namespace(): LabelNamespace | null;
}

export async function buildFilters(store: Store, endpoint: ChainEndpoint, network: string, values: QueryValues, q: ParamBinder, keyId?: string): Promise<FilterResult> {
  const where: Condition[] = [];
  const ctx = await filterContext(store, endpoint, network, values, q, keyId);
  // Token first: a custom `decimals` changes the amount that amount filters see.
  const entries = Object.entries(endpoint.filters).sort(([, a], [, b]) => Number(b.kind === 'token') - Number(a.kind === 'token'));
  for (const [param, f] of entries) {
    const value = values[param];
    if (f.kind === 'market') {
      // The market filter applies on its network even when the default is used.
      if (network === f.network) where.push({ kind: 'compare', left: c(f.column), op: '=', right: q.bind(String(value ?? 'Core')) });
      continue;
    }
    if (value === undefined) continue;
    where.push(...(await condition(ctx, param, f, value)));
  }
  return { where, overrides: ctx.overrides, tokenCount: ctx.tokenCount, droppedTokens: ctx.droppedTokens, pool: ctx.pool };
}

async function filterContext(store: Store, endpoint: ChainEndpoint, network: string, values: QueryValues, q: ParamBinder, keyId: string | undefined): Promise<FilterContext> {
  let boundNetwork: Expr | undefined;
  const ownNamespace = await labelNamespace(store, values.wallet_namespace, keyId);
  // Bound only when a label or category filter reads it: a bound value no statement
  // uses is refused by the engine, and `wallet_namespace` alone filters nothing.
  let boundNamespace: LabelNamespace | null | undefined;
  return {
    store,
    endpoint,
    network,
    values,
    q,
    overrides: {},
    droppedTokens: [],
    tokenCount: 0,
    pool: null,
    labelScope: () => (boundNetwork ??= q.bind(network)),
    namespace: () => (boundNamespace ??= ownNamespace && { keyId: q.bind(ownNamespace.keyId), name: q.bind(ownNamespace.name) }),
  };
}

const amountExpr = (ctx: FilterContext, name: string): Expr => ctx.overrides[name] ?? c(name);

async function condition(ctx: FilterContext, param: string, f: FilterDef, value: string | number | boolean): Promise<Condition[]> {
  const { q } = ctx;
  switch (f.kind) {
    case 'address': {
      const list = splitList(String(value), param).map((a) => normalizeAddress(ctx.endpoint.family, a, param));
      const values = q.bindList(list);
      return [anyColumn(f.columns, (arg) => ({ kind: 'in', arg, values }))];
    }
    case 'label': {
      const substrings = splitList(String(value), param).map((s) => q.bind(s.toLowerCase()));
      const set = { kind: 'label', network: ctx.labelScope(), namespace: ctx.namespace(), substrings } as const;
      return [anyColumn(f.columns, (arg) => ({ kind: 'in_labels', arg, set }))];
    }
    case 'category': {
      const categories = q.bindList(splitList(String(value), param).map((s) => s.toLowerCase()));
      const set = { kind: 'category', network: ctx.labelScope(), namespace: ctx.namespace(), categories } as const;
      return [anyColumn(f.columns, (arg) => ({ kind: 'in_labels', arg, set }))];
    }
    case 'min_amount':
      return [{ kind: 'compare', left: amountExpr(ctx, f.column), op: '>=', right: q.bind(Number(value), 'float64') }];
    case 'max_amount':
      // 0 means no limit (docs/api.md, "Filters").
      return Number(value) === 0 ? [] : [{ kind: 'compare', left: amountExpr(ctx, f.column), op: '<=', right: q.bind(Number(value), 'float64') }];
    case 'token':
      return tokenCondition(ctx, String(value));
    case 'decimals':
      return []; // applied together with the token
    case 'pool': {
      const { values } = ctx;
      const pool = await resolvePool(ctx.store, ctx.network, String(values.symbol0), String(values.symbol1), Number(values.fee));
      ctx.pool = pool;
      return [{ kind: 'compare', left: c('pool_address'), op: '=', right: q.bind(pool.address) }];
    }
    case 'market':
      return [];
  }
}

interface UnknownToken {
  readonly input: string;
  readonly error: ApiError;
}

/** The tokens a token filter names, resolved: their addresses, the contracts without registry decimals, and the inputs nobody knows. */
interface ResolvedTokens {
  readonly addresses: Set<string>;
  /** Distinct tokens by what they resolve to: `usdt,USDT` or a symbol and its own contract are one token. */
  readonly tokens: Set<string>;
  readonly unknown: UnknownToken[];
  readonly defaultDecimals: string[];
}

/**
 * The token filter: one token or several, comma-separated (chainq's
 * extension, docs/api.md). Each is a symbol or a contract in the family's
 * address form. Unknown ones are a 400 naming them all, or are dropped
 * under `ignore_unknown_tokens=true` as long as one known token remains.
 */
async function tokenCondition(ctx: FilterContext, value: string): Promise<Condition[]> {
  const { q } = ctx;
  const inputs = [...new Set(splitList(value, 'token'))];
  // splitList never answers an empty list: with one input, `every` tests that one.
  if (ctx.values.decimals !== undefined && (inputs.length > 1 || !inputs.every((input) => isEvmAddress(input)))) {
    throw new ApiError('invalid_parameter', 'decimals applies only when token is a single contract address; a symbol carries its own decimals', { parameter: 'decimals' });
  }
  const { addresses, tokens, unknown, defaultDecimals } = await resolveTokens(ctx, inputs);
  const ignore = ctx.values.ignore_unknown_tokens === true;
  if (unknown.length > 0 && (!ignore || addresses.size === 0)) throw unknownTokensError(ctx.network, inputs, unknown, ignore);
  ctx.droppedTokens.push(...unknown.map((u) => u.input));
  ctx.tokenCount = tokens.size;
  if (defaultDecimals.length > 0) {
    // Not in the registry: the documented default of 18 decimals applies to those contracts.
    const rescaled: Expr = { kind: 'rescale', amount: c('amount'), decimals: c('token_decimals'), to: integer(18) };
    ctx.overrides.amount =
      defaultDecimals.length === addresses.size ? rescaled : { kind: 'when_in', arg: c('token_address'), values: q.bindList(defaultDecimals), then: rescaled, otherwise: c('amount') };
  }
  const list = [...addresses];
  const [only] = list;
  return [list.length === 1 && only !== undefined ? { kind: 'compare', left: c('token_address'), op: '=', right: q.bind(only) } : { kind: 'in', arg: c('token_address'), values: q.bindList(list) }];
}

async function resolveTokens(ctx: FilterContext, inputs: readonly string[]): Promise<ResolvedTokens> {
  const resolvedTokens: ResolvedTokens = { addresses: new Set(), tokens: new Set(), unknown: [], defaultDecimals: [] };
  for (const input of inputs) {
    try {
      const resolved = await resolveOne(ctx, input);
      for (const a of resolved.addresses) resolvedTokens.addresses.add(a);
      resolvedTokens.tokens.add([...resolved.addresses].sort().join(','));
      if (resolved.defaultDecimals) resolvedTokens.defaultDecimals.push(...resolved.addresses);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'unknown_token') throw e;
      resolvedTokens.unknown.push({ input, error: e });
    }
  }
  return resolvedTokens;
}

/** The 400 for unknown tokens: a single token's own error, or one naming them all. */
function unknownTokensError(network: string, inputs: readonly string[], unknown: readonly UnknownToken[], ignore: boolean): ApiError {
  const [first] = unknown;
  if (inputs.length === 1 && first) return first.error;
  const names = unknown.map((u) => `'${u.input}'`).join(', ');
  const hint = ignore ? 'none of the tokens is known' : 'pass ignore_unknown_tokens=true to drop unknown ones';
  return new ApiError('unknown_token', `unknown token${unknown.length > 1 ? 's' : ''} ${names} on ${network}: use symbols listed by /v1/tokens or contract addresses; ${hint}`, {
    parameter: 'token',
    unknown: unknown.map((u) => u.input),
  });
}

async function resolveOne(ctx: FilterContext, token: string): Promise<{ addresses: readonly string[]; defaultDecimals: boolean }> {
  const { store, network, values, q } = ctx;
  if (ctx.endpoint.family === 'tron') return { addresses: await resolveTronToken(store, network, token), defaultDecimals: false };
  if (!isEvmAddress(token)) return { addresses: (await resolveTokenSymbol(store, network, token)).addresses, defaultDecimals: false };
  const address = token.toLowerCase();
  if (values.decimals !== undefined) {
    // The stored amount is scaled by the decimals known at ingestion; rescale to the caller's.
    ctx.overrides.amount = { kind: 'rescale', amount: c('amount'), decimals: c('token_decimals'), to: q.bind(Number(values.decimals)) };
    return { addresses: [address], defaultDecimals: false };
  }
  return { addresses: [address], defaultDecimals: (await tokenDecimals(store, network, address)) === null };
}
