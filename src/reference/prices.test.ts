import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../store/openStore.ts';
import type { Store } from '../store/types.ts';
import { refreshPrices } from './prices.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

let store: Store;

beforeEach(async () => {
  store = await createStore({ dataDir: null, threads: 2 });
});
afterEach(async () => {
  await store.close();
});

/** 1-minute candles of `token` from `start` (ISO minute), one per minute, close = price(i). */
async function candles(token: string, start: string, minutes: number, price: (i: number) => number): Promise<void> {
  const values = Array.from({ length: minutes }, (_, i) => `(${i}, ${price(i)})`).join(', ');
  await engineSql(store).run(`INSERT INTO venue_a_klines
    SELECT '${token}', TIMESTAMP '${start}' + to_minutes(i), c, c, c, c, 1, c, 1, 0.5 FROM (VALUES ${values}) v(i, c)`);
}

async function priceAt(token: string, minute: string | null): Promise<number | null> {
  const rows = await engineSql(store).all<{ usd: number }>(
    minute === null ? `SELECT usd FROM prices WHERE token = $token AND minute IS NULL` : `SELECT usd FROM prices WHERE token = $token AND minute = CAST($minute AS TIMESTAMP)`,
    minute === null ? { token } : { token, minute },
  );
  if (rows.length > 1) throw new Error(`${rows.length} prices for ${token} at ${minute}`);
  return rows[0]?.usd ?? null;
}

describe('refreshPrices', () => {
  it('takes each minute close of a <TOKEN>USDT candle as the USD price', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 3, (i) => 3000 + i);
    await refreshPrices(store);
    expect(await priceAt('ETH', '2025-12-01 00:00:00')).toBe(3000);
    expect(await priceAt('ETH', '2025-12-01 00:02:00')).toBe(3002);
    expect(await priceAt('ETH', '2025-12-01 00:03:00')).toBeNull();
  });

  it('prices WETH and STETH as ETH and WBTC as BTC', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 2, (i) => 3000 + i);
    await candles('BTC', '2025-12-01 00:00:00', 2, (i) => 90_000 + i);
    await refreshPrices(store);
    expect(await priceAt('WETH', '2025-12-01 00:01:00')).toBe(3001);
    expect(await priceAt('STETH', '2025-12-01 00:01:00')).toBe(3001);
    expect(await priceAt('WBTC', '2025-12-01 00:01:00')).toBe(90_001);
  });

  it('prefers a market of its own over an alias', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 1, () => 3000);
    await candles('WBTC', '2025-12-01 00:00:00', 1, () => 89_000);
    await candles('BTC', '2025-12-01 00:00:00', 1, () => 90_000);
    await refreshPrices(store);
    expect(await priceAt('WBTC', '2025-12-01 00:00:00')).toBe(89_000);
  });

  it('counts USDT, USDC and DAI as 1.0 at every minute only when they have no market', async () => {
    await candles('USDC', '2025-12-01 00:00:00', 1, () => 0.998);
    await refreshPrices(store);
    expect(await priceAt('USDT', null)).toBe(1);
    expect(await priceAt('DAI', null)).toBe(1);
    expect(await priceAt('USDC', null)).toBeNull();
    expect(await priceAt('USDC', '2025-12-01 00:00:00')).toBe(0.998);
    // With its own market, a minute without a candle has no price: no silent peg.
    expect(await priceAt('USDC', '2025-12-01 00:01:00')).toBeNull();
  });

  it('prices WSTETH through the stETH-per-share rate of the latest withdrawal request', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 4, () => 3000);
    // amountOfStETH / amountOfShares: 1.2 from 00:01:30, 1.25 from 00:02:10.
    await engineSql(store).run(`INSERT INTO evm_staking_withdrawal_request (network, block_number, log_index, time, burned_amount, burned_shares, burned_token)
      VALUES ('ETH', 1, 0, TIMESTAMP '2025-12-01 00:01:30', 12, 10, 'STETH'), ('ETH', 2, 0, TIMESTAMP '2025-12-01 00:02:10', 25, 20, 'STETH')`);
    await refreshPrices(store);
    // Before any request: the earliest known rate.
    expect(await priceAt('WSTETH', '2025-12-01 00:00:00')).toBeCloseTo(3600, 9);
    expect(await priceAt('WSTETH', '2025-12-01 00:02:00')).toBeCloseTo(3600, 9);
    expect(await priceAt('WSTETH', '2025-12-01 00:03:00')).toBeCloseTo(3750, 9);
  });

  it('leaves WSTETH unpriced when the store holds no withdrawal requests', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 1, () => 3000);
    await refreshPrices(store);
    expect(await priceAt('WSTETH', '2025-12-01 00:00:00')).toBeNull();
  });

  it('keeps one price per token and minute when candles repeat, and rebuilds from scratch', async () => {
    await candles('ETH', '2025-12-01 00:00:00', 1, () => 3000);
    await candles('ETH', '2025-12-01 00:00:00', 1, () => 3002);
    await refreshPrices(store);
    expect(await priceAt('ETH', '2025-12-01 00:00:00')).toBe(3001);
    await engineSql(store).run('DELETE FROM venue_a_klines');
    await refreshPrices(store);
    expect(await priceAt('ETH', '2025-12-01 00:00:00')).toBeNull();
    expect(await priceAt('USDT', null)).toBe(1);
  });
});
