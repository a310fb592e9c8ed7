/**
 * Token metadata for decoding: symbol and decimals per contract. The
 * operator's registry (`tokens`) wins; otherwise `decimals()` and `symbol()`
 * are read once with eth_call and kept in `token_cache`, written with the
 * batch of the rows that first needed them. A contract that answers
 * neither keeps null there and is scaled with 18 decimals, the API's default
 * for unknown tokens, so stored and queried amounts agree.
 */
import { cachedTokens, registryTokens } from '../../store/chainReads.ts';
import { decodeAbiParameters, hexToString } from 'viem';
import type { Store, TokenMeta } from '../../store/types.ts';
import { callMany } from '../rpc/actions.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import type { Hex } from '../rpc/getLogs.ts';
import type { TokenInfo } from '../../protocols/types.ts';

const DECIMALS = '0x313ce567';
const SYMBOL = '0x95d89b41';
export const DEFAULT_DECIMALS = 18;

interface CacheEntry {
  readonly symbol: string | null;
  readonly decimals: number | null;
}

export interface TokenBook {
  /** Reads what is missing among `addresses` from the chain. */
  ensure(addresses: Iterable<Hex>): Promise<void>;
  /** A token already ensured (or in the registry). */
  get(address: Hex): TokenInfo;
  has(address: Hex): boolean;
  /** The entries read from the chain since the last call, for the batch that writes them (`ChainBatch.tokenCache`). */
  takeUnsaved(): TokenMeta[];
}

export async function createTokenBook(store: Store, rpc: Rpc, network: string): Promise<TokenBook> {
  const registry = new Map<string, TokenInfo>();
  for (const r of await registryTokens(store, network)) {
    if (!registry.has(r.address)) registry.set(r.address, { address: r.address as Hex, symbol: r.symbol, decimals: Number(r.decimals) });
  }
  const cache = new Map<string, CacheEntry>();
  for (const r of await cachedTokens(store, network)) cache.set(r.address, { symbol: r.symbol, decimals: r.decimals === null ? null : Number(r.decimals) });

  const pending = new Map<string, Promise<void>>();
  const unsaved = new Map<string, CacheEntry>();

  async function read(addresses: Hex[]): Promise<void> {
    const answers = await callMany(
      rpc,
      addresses.flatMap((to) => [
        { to, data: DECIMALS as Hex },
        { to, data: SYMBOL as Hex },
      ]),
    );
    addresses.forEach((a, i) => {
      const d = answers[2 * i]!;
      const s = answers[2 * i + 1]!;
      const entry = { decimals: d.ok ? parseDecimals(d.result) : null, symbol: s.ok ? parseSymbol(s.result) : null };
      cache.set(a, entry);
      unsaved.set(a, entry);
    });
  }

  return {
    async ensure(addresses) {
      const missing: Hex[] = [];
      const waits: Promise<void>[] = [];
      for (const raw of addresses) {
        const a = raw.toLowerCase() as Hex;
        if (registry.has(a) || cache.has(a)) continue;
        const p = pending.get(a);
        if (p) waits.push(p);
        else if (!missing.includes(a)) missing.push(a);
      }
      if (missing.length) {
        const p = read(missing);
        for (const a of missing) pending.set(a, p);
        waits.push(
          p.finally(() => {
            for (const a of missing) pending.delete(a);
          }),
        );
      }
      await Promise.all(waits);
    },
    has: (address) => registry.has(address) || cache.has(address),
    get(address) {
      const r = registry.get(address);
      if (r) return r;
      const c = cache.get(address);
      if (!c) throw new Error(`token ${address} was not resolved before decoding`);
      return { address, symbol: c.symbol ?? address, decimals: c.decimals ?? DEFAULT_DECIMALS };
    },
    takeUnsaved() {
      const entries = [...unsaved].map(([address, e]) => ({ address, symbol: e.symbol, decimals: e.decimals }));
      unsaved.clear();
      return entries;
    },
  };
}

/** decimals() answers one uint8 word; anything else means "not an ERC-20 we can scale". */
export function parseDecimals(result: Hex): number | null {
  if (result.length < 66) return null;
  const v = BigInt(result.slice(0, 66));
  return v <= 255n ? Number(v) : null;
}

/** symbol() answers an ABI string, or a bytes32 on old tokens (MKR, SAI). */
export function parseSymbol(result: Hex): string | null {
  let text: string | null = null;
  try {
    if (result.length >= 2 + 128) text = decodeAbiParameters([{ type: 'string' }], result)[0];
  } catch {
    text = null;
  }
  if (text === null && result.length === 66) text = hexToString(result).replace(/\0+$/, '');
  if (text === null) return null;
  // Symbols are shown upper case (docs/api.md, "Tokens"); control and invisible characters are dropped.
  const clean = text
    .replace(/[\p{C}\s]+/gu, ' ')
    .trim()
    .toUpperCase()
    .slice(0, 64);
  return clean === '' ? null : clean;
}
