/**
 * Catalog filters → conditions of the query description. Every user value
 * is bound; labels and categories select addresses from the labels table.
 */
import type { ChainEndpoint, FilterDef } from '../../catalog/types.ts';
import { ApiError } from '../../errors/apiError.ts';
import type { Store } from '../../store/createStore.ts';
import { isEvmAddress, normalizeAddress, splitList } from '../addresses.ts';
import type { QueryValues } from '../normalize.ts';
import { resolvePool, resolveTokenSymbol, resolveTronToken, tokenDecimals } from '../resolve.ts';
import type { Condition, Expr } from '../../store/query.ts';
import { column, integer, type ParamBinder } from './params.ts';

export interface FilterResult {
  readonly where: Condition[];
  /** Output columns whose expression changes with the request (amount under custom decimals). */
  readonly overrides: Record<string, Expr>;
}

const c = column;
const anyColumn = (columns: readonly string[], condition: (col: Expr) => Condition): Condition =>
  ({ kind: 'or', args: columns.map((col) => condition(c(col))) });

export async function buildFilters(
  store: Store,
  endpoint: ChainEndpoint,
  network: string,
  values: QueryValues,
  q: ParamBinder,
): Promise<FilterResult> {
  const where: Condition[] = [];
  const overrides: Record<string, Expr> = {};
  let boundNetwork: Expr | undefined;
  const labelScope = () => (boundNetwork ??= q.bind(network));
  const amountExpr = (name: string) => overrides[name] ?? c(name);

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
    where.push(...(await condition(param, f, value)));
  }
  return { where, overrides };

  async function condition(param: string, f: FilterDef, value: string | number | boolean): Promise<Condition[]> {
    switch (f.kind) {
      case 'address': {
        const list = splitList(String(value), param).map((a) => normalizeAddress(endpoint.family, a, param));
        const values = q.bindList(list);
        return [anyColumn(f.columns, (arg) => ({ kind: 'in', arg, values }))];
      }
      case 'label': {
        const substrings = splitList(String(value), param).map((s) => q.bind(s.toLowerCase()));
        const set = { kind: 'label', network: labelScope(), substrings } as const;
        return [anyColumn(f.columns, (arg) => ({ kind: 'in_labels', arg, set }))];
      }
      case 'category': {
        const categories = q.bindList(splitList(String(value), param).map((s) => s.toLowerCase()));
        const set = { kind: 'category', network: labelScope(), categories } as const;
        return [anyColumn(f.columns, (arg) => ({ kind: 'in_labels', arg, set }))];
      }
      case 'min_amount':
        return [{ kind: 'compare', left: amountExpr(f.column), op: '>=', right: q.bind(Number(value), 'float64') }];
      case 'max_amount':
        // 0 means no limit (interface.md §4.2).
        return Number(value) === 0 ? [] : [{ kind: 'compare', left: amountExpr(f.column), op: '<=', right: q.bind(Number(value), 'float64') }];
      case 'token':
        return tokenCondition(String(value));
      case 'decimals':
        return []; // applied together with the token
      case 'pool': {
        const pool = await resolvePool(store, network, String(values.symbol0), String(values.symbol1), Number(values.fee));
        return [{ kind: 'compare', left: c('pool_address'), op: '=', right: q.bind(pool.address) }];
      }
      case 'market':
        return [];
    }
  }

  /** The token filter, per chain family: a symbol, or a contract in the family's address form. */
  async function tokenCondition(token: string): Promise<Condition[]> {
    if (endpoint.family === 'tron') return [{ kind: 'in', arg: c('token_address'), values: q.bindList(await resolveTronToken(store, network, token)) }];
    return evmTokenCondition(token);
  }

  async function evmTokenCondition(token: string): Promise<Condition[]> {
    const decimalsParam = values.decimals;
    if (isEvmAddress(token)) {
      const address = token.toLowerCase();
      if (decimalsParam !== undefined) {
        // The stored amount is scaled by the decimals known at ingestion; rescale to the caller's.
        overrides.amount = { kind: 'rescale', amount: c('amount'), decimals: c('token_decimals'), to: q.bind(Number(decimalsParam)) };
      } else if ((await tokenDecimals(store, network, address)) === null) {
        // Not in the registry: the documented default of 18 decimals applies.
        overrides.amount = { kind: 'rescale', amount: c('amount'), decimals: c('token_decimals'), to: integer(18) };
      }
      return [{ kind: 'compare', left: c('token_address'), op: '=', right: q.bind(address) }];
    }
    if (decimalsParam !== undefined) {
      throw new ApiError('invalid_parameter', 'decimals applies only when token is a contract address; a symbol carries its own decimals', { parameter: 'decimals' });
    }
    const resolved = await resolveTokenSymbol(store, network, token);
    return [{ kind: 'in', arg: c('token_address'), values: q.bindList(resolved.addresses) }];
  }
}
