/** Turns names users type (token symbols, pool pairs) into what the store keys on. */
import { networkInfo } from '../catalog/networks.ts';
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/types.ts';
import { contractDecimals, poolsBetween, registryAddress, symbolsWithAlias, tokensBySymbol } from '../store/registry.ts';
import { isTronBase58 } from '../utils/tronAddress.ts';

export interface ResolvedToken {
  readonly addresses: readonly string[];
  readonly symbol: string | null;
  readonly decimals: number | null;
}

/** A symbol or alias (case-insensitive) on `network`, from the token registry. */
export async function resolveTokenSymbol(store: Store, network: string, text: string): Promise<ResolvedToken> {
  const sym = text.trim().toUpperCase();
  const rows = await tokensBySymbol(store, network, sym);
  // An exact symbol match wins over aliases; one symbol may have several contracts.
  const [first] = rows;
  if (first === undefined) throw new ApiError('unknown_token', `unknown token '${text}' on ${network}: use a symbol listed by /v1/tokens or a contract address`, { parameter: 'token' });
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
  const known = await registryAddress(store, network, input);
  if (known !== null) return [known];
  if (isTronBase58(input)) return [input];
  throw new ApiError('unknown_token', `token '${text}' is not a base58 T… contract address (checksum fails) nor a token of the registry on ${network}; see /v1/tokens`, { parameter: 'token' });
}

/** Decimals of a token contract: the registry's, else what ingestion read on chain (token_cache), else null. */
export async function tokenDecimals(store: Store, network: string, address: string): Promise<number | null> {
  return contractDecimals(store, network, address);
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
  for (const symbol of await symbolsWithAlias(store, network, sym)) out.add(symbol);
  if (networkInfo(network)?.nativeSymbol === sym) out.add(`W${sym}`);
  return [...out];
}

export async function resolvePool(store: Store, network: string, symbol0: string, symbol1: string, fee: number): Promise<ResolvedPool> {
  const a = await symbolCandidates(store, network, symbol0);
  const b = await symbolCandidates(store, network, symbol1);
  const rows = await poolsBetween(store, network, a, b);
  const match = rows.find((r) => r.fee === fee);
  if (match) {
    const token0First = a.includes(match.token0.toUpperCase());
    const requestOrder: [string, string] = token0First ? [match.token0, match.token1] : [match.token1, match.token0];
    return { address: match.pool_address, token0: match.token0, token1: match.token1, requestOrder };
  }
  const fees = rows.map((r) => r.fee);
  const pair = `${symbol0.toUpperCase()}/${symbol1.toUpperCase()}`;
  throw new ApiError('invalid_parameter', fees.length ? `no ${pair} pool with fee ${fee} on ${network}; fee tiers with a pool: ${fees.join(', ')}` : `no ${pair} pool on ${network}`, {
    parameter: 'fee',
    ...(fees.length ? { supported: fees } : {}),
  });
}
