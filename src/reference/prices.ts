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
import { stakingWithdrawalRequest } from '../catalog/evm/staking.ts';
import { venueAOhlcv } from '../catalog/venues/venue_a.ts';
import { clickHouseOf } from '../store/clickhouse/createClickHouseStore.ts';
import { rewriteTables, type RewriteInput } from '../store/clickhouse/publish.ts';
import type { Store } from '../store/types.ts';

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

export interface PriceRefresh {
  /** Symbols with a price, by source. */
  readonly markets: number;
  readonly derived: number;
  readonly pegged: number;
  readonly rows: number;
}

const list = (xs: readonly string[]) => xs.map((x) => `'${x.replaceAll("'", "''")}'`).join(', ');

/** What the rebuild reads: the candles' closes and the withdrawal requests' stETH-per-share rate. */
const PRICE_INPUTS: readonly RewriteInput[] = [
  { table: venueAOhlcv.table.name, columns: ['token', 'time', 'close'] },
  { table: stakingWithdrawalRequest.table.name, columns: ['time', 'burned_amount', 'burned_shares'] },
];

/**
 * Replaces the `prices` table with prices derived from the store's candles
 * and staking data. On ClickHouse the same rebuild runs in the scratch store
 * over the columns it reads, and the new table replaces the old in one step
 * (docs/storage.md, "Writes without transactions").
 */
export async function refreshPrices(store: Store): Promise<PriceRefresh> {
  const ch = clickHouseOf(store);
  if (ch) return rewriteTables(ch, ['prices'], (scratch) => refreshPrices(scratch), { inputs: PRICE_INPUTS, fresh: true });
  const klines = venueAOhlcv.table.name;
  const requests = stakingWithdrawalRequest.table.name;
  // Symbols below are module constants, not request text.
  const aliases = Object.entries(PRICE_ALIASES)
    .map(([a, b]) => `('${a}', '${b}')`)
    .join(', ');
  return store.transaction(async (tx) => {
    await tx.run('DELETE FROM prices');
    // Several candles in one minute (a re-imported file) must not duplicate a price.
    await tx.run(`INSERT INTO prices
      SELECT upper(token), date_trunc('minute', time), avg(close) FROM ${klines}
      WHERE close > 0 GROUP BY ALL`);
    const marketRows = await tx.all<{ token: string }>('SELECT DISTINCT token FROM prices');
    const markets = new Set(marketRows.map((r) => r.token));
    const notMarket = (s: string) => !markets.has(s);

    const pegs = PEGGED_STABLECOINS.filter(notMarket);
    if (pegs.length) await tx.run(`INSERT INTO prices SELECT token, NULL, 1.0 FROM (VALUES ${pegs.map((p) => `('${p}')`).join(', ')}) v(token)`);

    if (notMarket('WSTETH')) {
      await tx.run(`INSERT INTO prices
        WITH r AS (SELECT time, burned_amount / burned_shares AS rate FROM ${requests} WHERE burned_shares > 0 AND burned_amount > 0),
             earliest AS (SELECT rate FROM r ORDER BY time LIMIT 1)
        SELECT 'WSTETH', e.minute, e.usd * coalesce(r.rate, (SELECT rate FROM earliest))
        FROM (SELECT minute, usd FROM prices WHERE token = 'ETH' AND minute IS NOT NULL) e
        ASOF LEFT JOIN r ON e.minute >= r.time
        WHERE EXISTS (SELECT 1 FROM r)`);
    }

    const aliased = Object.keys(PRICE_ALIASES).filter(notMarket);
    if (aliased.length) {
      await tx.run(`INSERT INTO prices
        SELECT a.alias, p.minute, p.usd FROM prices p JOIN (VALUES ${aliases}) a(alias, base) ON p.token = a.base
        WHERE a.alias IN (${list(aliased)})`);
    }

    const [summary] = await tx.all<{ tokens: bigint; rows: bigint; pegged: bigint }>(
      'SELECT count(DISTINCT token) AS tokens, count(*) AS rows, count(*) FILTER (WHERE minute IS NULL) AS pegged FROM prices',
    );
    const tokens = Number(summary?.tokens ?? 0);
    const pegged = Number(summary?.pegged ?? 0);
    return { markets: markets.size, derived: tokens - markets.size - pegged, pegged, rows: Number(summary?.rows ?? 0) };
  });
}
