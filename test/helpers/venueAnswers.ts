/**
 * The venue endpoints' answers over the ingestion tests' fixtures, in a form
 * that compares across engines: CSV parsed into rows with numeric text as
 * numbers and NULL as empty (ClickHouse quotes every CSV text field, writes
 * whole floats without ".0" and NULL as \N: docs/storage.md, "Not yet on
 * ClickHouse"), JSON parsed.
 */
import { parse } from 'csv-parse/sync';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** venue_a: two tokens, two days of every daily kind, December's funding (fixtures/venueA.ts ARCHIVE). */
export function venueAUrls(tokens: readonly string[], d1: number, days: number, month: { lo: number; hi: number }): string[] {
  const range = `since=${iso(d1)}&until=${iso(d1 + days * 24 * HOUR)}`;
  return tokens.flatMap((t) => [
    ...['raw_trades', 'book_depth', 'open_interest', 'long_short_ratios'].map((e) => `/v1/exchange/venue_a/${e}?token=${t}&${range}`),
    `/v1/exchange/venue_a/ohlcv?token=${t}&${range}&window=1h`,
    `/v1/exchange/venue_a/ohlcv?token=${t}&${range}&window=1m&format=json`,
    `/v1/exchange/venue_a/funding_rate?token=${t}&since=${iso(month.lo)}&until=${iso(month.hi)}`,
  ]);
}

/** venue_b fills, trades and positions per hour and over all hours; candles and funding over their days. */
export function venueBUrls(
  fills: { tokens: readonly string[]; h0: number; hours: number },
  info: { tokens: readonly string[]; candleDays: { lo: number; hi: number }; fundingDays: { lo: number; hi: number } },
): string[] {
  const { tokens, h0, hours } = fills;
  const { candleDays, fundingDays } = info;
  const hourly = (lo: number, hi: number) => ['fills', 'raw_trades', 'positions'].flatMap((e) => tokens.map((t) => `/v1/exchange/venue_b/${e}?token=${t}&since=${iso(lo)}&until=${iso(hi)}`));
  return [
    ...hourly(h0, h0 + hours * HOUR),
    ...Array.from({ length: hours }, (_, h) => hourly(h0 + h * HOUR, h0 + (h + 1) * HOUR)).flat(),
    ...info.tokens.map((t) => `/v1/exchange/venue_b/ohlcv?token=${t}&since=${iso(candleDays.lo)}&until=${iso(candleDays.hi)}&window=15m&format=json`),
    ...info.tokens.map((t) => `/v1/exchange/venue_b/funding?token=${t}&since=${iso(fundingDays.lo)}&until=${iso(fundingDays.hi)}`),
  ];
}

/** Decimal number text (not 0x… addresses, which Number() would read as hexadecimal). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A response body as comparable rows. */
export function comparable(contentType: string, body: string): unknown {
  if (contentType.startsWith('text/csv')) {
    const rows = parse(body, { columns: true }) as Record<string, string>[];
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, DECIMAL.test(v) ? Number(v) : v === '\\N' ? '' : v])));
  }
  return JSON.parse(body) as unknown;
}

/** How many rows an answer holds (CSV rows, or a JSON envelope's events/candles). */
export function rowCount(answer: unknown): number {
  if (Array.isArray(answer)) return answer.length;
  const body = answer as Record<string, unknown>;
  const list = Object.values(body).find(Array.isArray);
  return list ? list.length : 0;
}
