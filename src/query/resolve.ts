/** Turns names users type (token symbols, pool pairs) into what the store keys on. */
import { networkInfo } from '../catalog/networks.ts';
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/createStore.ts';
import { isTronBase58 } from '../utils/tronAddress.ts';
import { SqlBuilder } from './sql/builder.ts';

export interface ResolvedToken {
  readonly addresses: readonly string[];
  readonly symbol: string | null;
  readonly decimals: number | null;
}

/** A symbol or alias (case-insensitive) on `network`, from the token registry. */
export async function resolveTokenSymbol(store: Store, network: string, text: string): Promise<ResolvedToken> {
  const sym = text.trim().toUpperCase();
  const rows = await store.all<{ symbol: string; address: string; decimals: number }>(
    `SELECT symbol, address, decimals FROM tokens
     WHERE network = $network AND address <> '' AND (upper(symbol) = $sym OR list_contains(list_transform(aliases, a -> upper(a)), $sym))
     ORDER BY (upper(symbol) = $sym) DESC, symbol`,
    { network, sym },
  );
  if (rows.length === 0) {
    throw new ApiError('unknown_token', `unknown token '${text}' on ${network}: use a symbol listed by /v1/tokens or a contract address`, { parameter: 'token' });
  }
  // An exact symbol match wins over aliases; one symbol may have several contracts.
  const first = rows[0]!;
  const same = rows.filter((r) => r.symbol === first.symbol);
  return { addresses: same.map((r) => r.address), symbol: first.symbol, decimals: same.length === 1 ? first.decimals : null };
}

/** Shaped like a base58 Tron address, in any letter case. */
const TRON_ADDRESS_ANY_CASE = /^t[1-9a-z]{33}$/i;

/**
 * A Tron token input → the stored (base58) contract addresses. Symbols are
 * case-insensitive. Base58 is case-sensitive, so a contract address is
 * matched against the registry without regard to case and replaced by the
 * registry's spelling; an address the registry does not know must be exact.
 */
export async function resolveTronToken(store: Store, network: string, text: string): Promise<string[]> {
  const input = text.trim();
  if (!TRON_ADDRESS_ANY_CASE.test(input)) return [...(await resolveTokenSymbol(store, network, input)).addresses];
  const rows = await store.all<{ address: string }>(
    `SELECT address FROM tokens WHERE network = $network AND lower(address) = lower($input) ORDER BY (address = $input) DESC LIMIT 1`,
    { network, input },
  );
  if (rows[0]) return [rows[0].address];
  if (isTronBase58(input)) return [input];
  throw new ApiError('unknown_token', `token '${text}' is not a base58 T… contract address (checksum fails) nor a token of the registry on ${network}; see /v1/tokens`, { parameter: 'token' });
}

/** Decimals of a token contract: the registry's, else what ingestion read on chain (token_cache), else null. */
export async function tokenDecimals(store: Store, network: string, address: string): Promise<number | null> {
  const rows = await store.all<{ decimals: number }>(
    `SELECT decimals FROM (
       SELECT decimals, 0 AS pref FROM tokens WHERE network = $network AND address = $address
       UNION ALL SELECT decimals, 1 AS pref FROM token_cache WHERE network = $network AND address = $address AND decimals IS NOT NULL)
     ORDER BY pref LIMIT 1`,
    { network, address },
  );
  return rows[0]?.decimals ?? null;
}

export interface ResolvedPool {
  readonly address: string;
  readonly token0: string;
  readonly token1: string;
  /** The pool's token symbols in the order the request named them (symbol0, symbol1). */
  readonly requestOrder: readonly [string, string];
}

/** Canonical symbols a pool-token input may stand for: itself, its registry symbol, and the wrapped native. */
async function symbolCandidates(store: Store, network: string, text: string): Promise<string[]> {
  const sym = text.trim().toUpperCase();
  const out = new Set([sym]);
  const rows = await store.all<{ symbol: string }>(
    `SELECT DISTINCT upper(symbol) AS symbol FROM tokens WHERE network = $network AND list_contains(list_transform(aliases, a -> upper(a)), $sym)`,
    { network, sym },
  );
  for (const r of rows) out.add(r.symbol);
  if (networkInfo(network)?.nativeSymbol === sym) out.add(`W${sym}`);
  return [...out];
}

export async function resolvePool(store: Store, network: string, symbol0: string, symbol1: string, fee: number): Promise<ResolvedPool> {
  const a = await symbolCandidates(store, network, symbol0);
  const b = await symbolCandidates(store, network, symbol1);
  const q = new SqlBuilder();
  const inA = q.bindList(a);
  const inB = q.bindList(b);
  const rows = await store.all<{ pool_address: string; token0: string; token1: string; fee: number }>(
    `SELECT pool_address, token0, token1, fee FROM pools
     WHERE network = ${q.bind(network)}
       AND ((upper(token0) IN ${inA} AND upper(token1) IN ${inB}) OR (upper(token0) IN ${inB} AND upper(token1) IN ${inA}))
     ORDER BY fee`,
    q.params,
  );
  const match = rows.find((r) => r.fee === fee);
  if (match) {
    const token0First = a.includes(match.token0.toUpperCase());
    const requestOrder: [string, string] = token0First ? [match.token0, match.token1] : [match.token1, match.token0];
    return { address: match.pool_address, token0: match.token0, token1: match.token1, requestOrder };
  }
  const fees = rows.map((r) => r.fee);
  const pair = `${symbol0.toUpperCase()}/${symbol1.toUpperCase()}`;
  throw new ApiError(
    'invalid_parameter',
    fees.length
      ? `no ${pair} pool with fee ${fee} on ${network}; fee tiers with a pool: ${fees.join(', ')}`
      : `no ${pair} pool on ${network}`,
    { parameter: 'fee', ...(fees.length ? { supported: fees } : {}) },
  );
}
