/**
 * Catalog filters → WHERE conditions. Every user value is bound; labels and
 * categories become semi-joins on the labels table.
 */
import type { ChainEndpoint, FilterDef } from '../../catalog/types.ts';
import { ApiError } from '../../errors/apiError.ts';
import type { Store } from '../../store/createStore.ts';
import { isEvmAddress, normalizeAddress, splitList } from '../addresses.ts';
import type { QueryValues } from '../normalize.ts';
import { resolvePool, resolveTokenSymbol, resolveTronToken, tokenDecimals } from '../resolve.ts';
import { ident, type SqlBuilder } from './builder.ts';

export interface FilterResult {
  readonly where: string[];
  /** Output columns whose expression changes with the request (amount under custom decimals). */
  readonly overrides: Record<string, string>;
}

const c = (name: string) => `t.${ident(name)}`;

export async function buildFilters(
  store: Store,
  endpoint: ChainEndpoint,
  network: string,
  values: QueryValues,
  q: SqlBuilder,
): Promise<FilterResult> {
  const where: string[] = [];
  const overrides: Record<string, string> = {};
  let boundNetwork: string | undefined;
  const labelScope = () => `(l.network IS NULL OR l.network = '' OR l.network = ${(boundNetwork ??= q.bind(network))})`;
  const amountExpr = (column: string) => overrides[column] ?? c(column);

  // Token first: a custom `decimals` changes the amount that amount filters see.
  const entries = Object.entries(endpoint.filters).sort(([, a], [, b]) => Number(b.kind === 'token') - Number(a.kind === 'token'));
  for (const [param, f] of entries) {
    const value = values[param];
    if (f.kind === 'market') {
      // The market filter applies on its network even when the default is used.
      if (network === f.network) where.push(`${c(f.column)} = ${q.bind(String(value ?? 'Core'))}`);
      continue;
    }
    if (value === undefined) continue;
    where.push(...(await condition(param, f, value)));
  }
  return { where, overrides };

  async function condition(param: string, f: FilterDef, value: string | number | boolean): Promise<string[]> {
    switch (f.kind) {
      case 'address': {
        const list = splitList(String(value), param).map((a) => normalizeAddress(endpoint.family, a, param));
        const inList = q.bindList(list);
        return [`(${f.columns.map((col) => `${c(col)} IN ${inList}`).join(' OR ')})`];
      }
      case 'label': {
        const subs = splitList(String(value), param).map((s) => `contains(lower(l.label), ${q.bind(s.toLowerCase())})`);
        const set = `(SELECT l.address FROM labels l WHERE ${labelScope()} AND (${subs.join(' OR ')}))`;
        return [`(${f.columns.map((col) => `${c(col)} IN ${set}`).join(' OR ')})`];
      }
      case 'category': {
        const cats = q.bindList(splitList(String(value), param).map((s) => s.toLowerCase()));
        const set = `(SELECT l.address FROM labels l WHERE ${labelScope()} AND lower(l.category) IN ${cats})`;
        return [`(${f.columns.map((col) => `${c(col)} IN ${set}`).join(' OR ')})`];
      }
      case 'min_amount':
        return [`${amountExpr(f.column)} >= ${q.bind(Number(value))}`];
      case 'max_amount':
        // 0 means no limit (interface.md §4.2).
        return Number(value) === 0 ? [] : [`${amountExpr(f.column)} <= ${q.bind(Number(value))}`];
      case 'token':
        return tokenCondition(String(value));
      case 'decimals':
        return []; // applied together with the token
      case 'pool': {
        const pool = await resolvePool(store, network, String(values.symbol0), String(values.symbol1), Number(values.fee));
        return [`t.pool_address = ${q.bind(pool.address)}`];
      }
      case 'market':
        return [];
    }
  }

  /** The token filter, per chain family: a symbol, or a contract in the family's address form. */
  async function tokenCondition(token: string): Promise<string[]> {
    if (endpoint.family === 'tron') return [`t.token_address IN ${q.bindList(await resolveTronToken(store, network, token))}`];
    return evmTokenCondition(token);
  }

  async function evmTokenCondition(token: string): Promise<string[]> {
    const decimalsParam = values.decimals;
    if (isEvmAddress(token)) {
      const address = token.toLowerCase();
      if (decimalsParam !== undefined) {
        // The stored amount is scaled by the decimals known at ingestion; rescale to the caller's.
        overrides.amount = `(t.amount * power(10, t.token_decimals::INTEGER - ${q.bind(Number(decimalsParam))}))`;
      } else if ((await tokenDecimals(store, network, address)) === null) {
        // Not in the registry: the documented default of 18 decimals applies.
        overrides.amount = `(t.amount * power(10, t.token_decimals::INTEGER - 18))`;
      }
      return [`t.token_address = ${q.bind(address)}`];
    }
    if (decimalsParam !== undefined) {
      throw new ApiError('invalid_parameter', 'decimals applies only when token is a contract address; a symbol carries its own decimals', { parameter: 'decimals' });
    }
    const resolved = await resolveTokenSymbol(store, network, token);
    return [`t.token_address IN ${q.bindList(resolved.addresses)}`];
  }
}
