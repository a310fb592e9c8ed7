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
import { namespaceExists, namespaceName, notFound } from '../../reference/userLabels.ts';

/**
 * The labels the label and category filters match: the shared table, plus
 * the caller's own namespace under `wallet_namespace` (docs/labels.md).
 * Only the caller's key id selects from user_labels, so another key's
 * namespace is not found rather than read.
 */
async function labelSource(store: Store, namespace: unknown, keyId: string | undefined, q: SqlBuilder): Promise<string> {
  if (typeof namespace !== 'string') return 'labels';
  const name = namespaceName(namespace);
  if (!keyId || !(await namespaceExists(store, keyId, name))) throw notFound(name);
  return `(SELECT address, label, category, network FROM labels
    UNION ALL SELECT address, label, category, network FROM user_labels WHERE key_id = ${q.bind(keyId)} AND namespace = ${q.bind(name)})`;
}

export interface FilterResult {
  readonly where: string[];
  /** Output columns whose expression changes with the request (amount under custom decimals). */
  readonly overrides: Record<string, string>;
  /** How many tokens the token filter selects (0 without one); several split aggregates by token. */
  readonly tokenCount: number;
  /** Tokens dropped as unknown under `ignore_unknown_tokens=true`, as the caller spelled them. */
  readonly droppedTokens: readonly string[];
}

const c = (name: string) => `t.${ident(name)}`;

export async function buildFilters(
  store: Store,
  endpoint: ChainEndpoint,
  network: string,
  values: QueryValues,
  q: SqlBuilder,
  keyId?: string,
): Promise<FilterResult> {
  const where: string[] = [];
  const overrides: Record<string, string> = {};
  let tokenCount = 0;
  const droppedTokens: string[] = [];
  let boundNetwork: string | undefined;
  const labelScope = () => `(l.network IS NULL OR l.network = '' OR l.network = ${(boundNetwork ??= q.bind(network))})`;
  const amountExpr = (column: string) => overrides[column] ?? c(column);
  const labels = await labelSource(store, values.wallet_namespace, keyId, q);

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
  return { where, overrides, tokenCount, droppedTokens };

  async function condition(param: string, f: FilterDef, value: string | number | boolean): Promise<string[]> {
    switch (f.kind) {
      case 'address': {
        const list = splitList(String(value), param).map((a) => normalizeAddress(endpoint.family, a, param));
        const inList = q.bindList(list);
        return [`(${f.columns.map((col) => `${c(col)} IN ${inList}`).join(' OR ')})`];
      }
      case 'label': {
        const subs = splitList(String(value), param).map((s) => `contains(lower(l.label), ${q.bind(s.toLowerCase())})`);
        const set = `(SELECT l.address FROM ${labels} l WHERE ${labelScope()} AND (${subs.join(' OR ')}))`;
        return [`(${f.columns.map((col) => `${c(col)} IN ${set}`).join(' OR ')})`];
      }
      case 'category': {
        const cats = q.bindList(splitList(String(value), param).map((s) => s.toLowerCase()));
        const set = `(SELECT l.address FROM ${labels} l WHERE ${labelScope()} AND lower(l.category) IN ${cats})`;
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

  /**
   * The token filter: one token or several, comma-separated (chainq's
   * extension, docs/api.md). Each is a symbol or a contract in the family's
   * address form. Unknown ones are a 400 naming them all, or are dropped
   * under `ignore_unknown_tokens=true` as long as one known token remains.
   */
  async function tokenCondition(value: string): Promise<string[]> {
    const inputs = [...new Set(splitList(value, 'token'))];
    if (values.decimals !== undefined && (inputs.length > 1 || !isEvmAddress(inputs[0]!))) {
      throw new ApiError('invalid_parameter', 'decimals applies only when token is a single contract address; a symbol carries its own decimals', { parameter: 'decimals' });
    }
    const addresses = new Set<string>();
    // Distinct tokens by what they resolve to: `usdt,USDT` or a symbol and its own contract are one token.
    const tokens = new Set<string>();
    const unknown: { input: string; error: ApiError }[] = [];
    const defaultDecimals: string[] = [];
    for (const input of inputs) {
      try {
        const resolved = await resolveOne(input);
        for (const a of resolved.addresses) addresses.add(a);
        tokens.add([...resolved.addresses].sort().join(','));
        if (resolved.defaultDecimals) defaultDecimals.push(...resolved.addresses);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'unknown_token') throw e;
        unknown.push({ input, error: e });
      }
    }
    const ignore = values.ignore_unknown_tokens === true;
    if (unknown.length > 0 && (!ignore || addresses.size === 0)) {
      if (inputs.length === 1) throw unknown[0]!.error;
      const names = unknown.map((u) => `'${u.input}'`).join(', ');
      const hint = ignore ? 'none of the tokens is known' : 'pass ignore_unknown_tokens=true to drop unknown ones';
      throw new ApiError('unknown_token', `unknown token${unknown.length > 1 ? 's' : ''} ${names} on ${network}: use symbols listed by /v1/tokens or contract addresses; ${hint}`, {
        parameter: 'token', unknown: unknown.map((u) => u.input),
      });
    }
    droppedTokens.push(...unknown.map((u) => u.input));
    tokenCount = tokens.size;
    if (defaultDecimals.length > 0) {
      // Not in the registry: the documented default of 18 decimals applies to those contracts.
      const rescaled = `(t.amount * power(10, t.token_decimals::INTEGER - 18))`;
      overrides.amount = defaultDecimals.length === addresses.size
        ? rescaled
        : `(CASE WHEN t.token_address IN ${q.bindList(defaultDecimals)} THEN ${rescaled} ELSE t.amount END)`;
    }
    const list = [...addresses];
    return [list.length === 1 ? `t.token_address = ${q.bind(list[0]!)}` : `t.token_address IN ${q.bindList(list)}`];
  }

  async function resolveOne(token: string): Promise<{ addresses: readonly string[]; defaultDecimals: boolean }> {
    if (endpoint.family === 'tron') return { addresses: await resolveTronToken(store, network, token), defaultDecimals: false };
    if (!isEvmAddress(token)) return { addresses: (await resolveTokenSymbol(store, network, token)).addresses, defaultDecimals: false };
    const address = token.toLowerCase();
    if (values.decimals !== undefined) {
      // The stored amount is scaled by the decimals known at ingestion; rescale to the caller's.
      overrides.amount = `(t.amount * power(10, t.token_decimals::INTEGER - ${q.bind(Number(values.decimals))}))`;
      return { addresses: [address], defaultDecimals: false };
    }
    return { addresses: [address], defaultDecimals: (await tokenDecimals(store, network, address)) === null };
  }
}
