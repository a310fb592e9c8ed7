/**
 * Link mode and engine-built candles, each against a baseline run in the same process:
 *
 * - link: `link=true` (write the file, then download it) vs streaming the same
 *   CSV directly, for one day of venue_a BTC trades. The ratio is the price of
 *   the detour through storage.
 * - candles: 1h candles over two days built from the stored 1-minute candles
 *   vs streaming those 1-minute candles unchanged. The ratio is the cost of
 *   the aggregation in the engine.
 */
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { BenchContext, BenchResult } from '../types.ts';

const RUNS = 7;

async function median(fn: () => Promise<void>): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!;
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const store = await createStore({ dataDir: path.join(ctx.workDir, 'data'), threads: 2 });
  await loadSeed(store);
  ctx.log('loading the 2-day demo');
  await generateDemo(store, { days: 2 });
  const app = await createApp({ store, links: { dir: path.join(ctx.workDir, 'links') } });
  const { key } = await createKey(store, { plan: 'unlimited' });
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 200)}`);
    return r;
  };

  const trades = '/v1/exchange/venue_a/raw_trades?token=BTC&since=2025-12-01&until=2025-12-02';
  let bytes = 0;
  const direct = await median(async () => {
    bytes = (await get(trades)).rawPayload.length;
  });
  const link = await median(async () => {
    const { url } = JSON.parse((await get(`${trades}&link=true`)).body) as { url: string };
    const r = await app.inject({ method: 'GET', url: new URL(url).pathname });
    if (r.rawPayload.length !== bytes) throw new Error('link download differs from the direct answer');
  });

  const minutes = '/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-03&window=1m';
  const hours = '/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-03&window=1h';
  const oneMinute = await median(async () => {
    await get(minutes);
  });
  const oneHour = await median(async () => {
    await get(hours);
  });

  await app.close();
  await store.close();
  return {
    scenario: 'venue-links',
    figures: [
      {
        name: 'link=true (write + download) of one day of venue_a BTC trades, CSV',
        ratio: link / direct,
        ratio_meaning: 'link time / direct streaming time (lower is better)',
        baseline: 'the same query streamed directly as CSV, same run',
        measured: { link_ms: link, direct_ms: direct, bytes },
      },
      {
        name: 'venue_a BTC 1h candles over 2 days from 1-minute candles',
        ratio: oneHour / oneMinute,
        ratio_meaning: '1h candle query time / 1m candle query time (lower is better)',
        baseline: 'the 1-minute candles of the same range, same run',
        measured: { one_hour_ms: oneHour, one_minute_ms: oneMinute },
      },
    ],
    notes: [`median of ${RUNS} runs after one warm-up, through app.inject`],
  };
}
