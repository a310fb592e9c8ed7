/**
 * USD prices per token and minute, for `with_value`. Rebuilt from the venue_a
 * 1-minute candles in the store: venue_a markets are <TOKEN>USDT, so a
 * candle's close is the token's USD price for that minute. Symbols that chains
 * use for the same asset are mapped onto those markets:
 *
 * - wrapped and bridged forms at 1:1 (WETH→ETH, WBTC→BTC, USDC.E→USDC…);
 * - STETH at 1:1 with ETH (the withdrawal queue redeems stETH 1:1 for ETH);
 * - WSTETH at ETH × the stETH-per-wstETH rate that the store's Lido
 *   withdrawal requests carry (amountOfStETH / amountOfShares; a share is one
 *   wstETH), taking the latest request at or before the minute, or the
 *   earliest one for minutes before any request. With no requests in the
 *   store, WSTETH has no price;
 * - USDT, USDC and DAI at 1.0 only when the store has no market of their own.
 *
 * A symbol with candles of its own is always priced from them alone. Pegs are
 * rows without a minute: they hold at every minute.
 */
import type { PriceRefresh, Store } from '../store/types.ts';

export type { PriceRefresh } from '../store/types.ts';

/** Chain symbol → the market symbol it is priced from, 1:1. */
export const PRICE_ALIASES: Readonly<Record<string, string>> = {
  WETH: 'ETH',
  STETH: 'ETH',
  WBTC: 'BTC',
  CBBTC: 'BTC',
  BTCB: 'BTC',
  WBNB: 'BNB',
  WPOL: 'POL',
  WAVAX: 'AVAX',
  WTRX: 'TRX',
  WMNT: 'MNT',
  WBERA: 'BERA',
  'USDC.E': 'USDC',
  USDBC: 'USDC',
};

/** Stablecoins counted as 1.0 USD when the store has no market of their own. */
export const PEGGED_STABLECOINS: readonly string[] = ['USDT', 'USDC', 'DAI'];

/**
 * Replaces the `prices` table with prices derived from the store's candles
 * and staking data by the rules above. On ClickHouse the same rebuild runs in
 * the scratch store over the columns it reads, and the new table replaces the
 * old in one step (docs/storage.md, "Writes without transactions").
 */
export function refreshPrices(store: Store): Promise<PriceRefresh> {
  return store.reference.refreshPrices({ aliases: PRICE_ALIASES, pegged: PEGGED_STABLECOINS });
}
