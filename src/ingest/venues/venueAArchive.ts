/**
 * venue_a's public data archive (data.binance.vision layout), USDT-margined
 * futures. Where each kind of file lives, its CSV columns, and how each
 * column maps to the store (columns as in docs/venues-tron-btc.md, "Exchange venues"):
 *
 * | kind        | file                                                                   | period  |
 * |-------------|------------------------------------------------------------------------|---------|
 * | trades      | data/futures/um/daily/trades/SYM/SYM-trades-YYYY-MM-DD.zip             | day     |
 * | klines      | data/futures/um/daily/klines/SYM/1m/SYM-1m-YYYY-MM-DD.zip              | day     |
 * | bookDepth   | data/futures/um/daily/bookDepth/SYM/SYM-bookDepth-YYYY-MM-DD.zip       | day     |
 * | metrics     | data/futures/um/daily/metrics/SYM/SYM-metrics-YYYY-MM-DD.zip           | day     |
 * | fundingRate | data/futures/um/monthly/fundingRate/SYM/SYM-fundingRate-YYYY-MM.zip    | month   |
 *
 * Every column is read as text and cast here, so the header and headerless
 * variants load the same way, and timestamps are read as seconds,
 * milliseconds or microseconds by their magnitude (the archive moved spot
 * files from ms to µs on 2025-01-01; futures files may follow).
 */
import { venueABookDepth, venueAFundingRate, venueALongShortRatios, venueAOhlcv, venueAOpenInterest, venueARawTrades } from '../../catalog/venues/venue_a.ts';

export type VenueAKind = 'trades' | 'klines' | 'bookDepth' | 'metrics' | 'fundingRate';
export const VENUE_A_KINDS: readonly VenueAKind[] = ['trades', 'klines', 'bookDepth', 'metrics', 'fundingRate'];

export interface VenueAKindSpec {
  readonly kind: VenueAKind;
  readonly period: 'day' | 'month';
  /** The store table. */
  readonly table: string;
  /** Coverage datasets this file completes (metrics feed two endpoints). */
  readonly datasets: readonly string[];
  /** CSV columns in file order. */
  readonly csvColumns: readonly string[];
  /** SELECT list producing the table's columns in order, over the CSV columns (text) and $token. */
  readonly select: string;
  readonly orderBy: string;
}

/** Epoch s/ms/µs digits, or a 'YYYY-MM-DD HH:MM:SS' text, as a UTC TIMESTAMP. */
export function timestampSql(col: string): string {
  const c = `trim("${col}")`;
  return `(CASE WHEN regexp_full_match(${c}, '[0-9]+') THEN
      CASE WHEN ${c}::BIGINT >= 100000000000000 THEN make_timestamp(${c}::BIGINT)
           WHEN ${c}::BIGINT >= 100000000000 THEN epoch_ms(${c}::BIGINT)
           ELSE make_timestamp(${c}::BIGINT * 1000000) END
    ELSE ${c}::TIMESTAMP END)`;
}

const num = (col: string) => `nullif(trim("${col}"), '')::DOUBLE`;

export const VENUE_A_SPECS: Readonly<Record<VenueAKind, VenueAKindSpec>> = {
  trades: {
    kind: 'trades',
    period: 'day',
    table: venueARawTrades.table.name,
    datasets: [venueARawTrades.id],
    csvColumns: ['id', 'price', 'qty', 'quote_qty', 'time', 'is_buyer_maker'],
    // buy = the taker bought = the buyer was not the maker.
    select: `$token, ${timestampSql('time')}, trim("id")::BIGINT, ${num('price')}, ${num('qty')}, ${num('quote_qty')}, NOT trim("is_buyer_maker")::BOOLEAN`,
    orderBy: 'time, id',
  },
  klines: {
    kind: 'klines',
    period: 'day',
    table: venueAOhlcv.table.name,
    datasets: [venueAOhlcv.id],
    csvColumns: ['open_time', 'open', 'high', 'low', 'close', 'volume', 'close_time', 'quote_volume', 'count', 'taker_buy_volume', 'taker_buy_quote_volume', 'ignore'],
    select: `$token, ${timestampSql('open_time')}, ${num('open')}, ${num('high')}, ${num('low')}, ${num('close')}, ${num('volume')}, ${num('quote_volume')}, trim("count")::BIGINT, ${num('taker_buy_volume')}`,
    orderBy: 'time',
  },
  bookDepth: {
    kind: 'bookDepth',
    period: 'day',
    table: venueABookDepth.table.name,
    datasets: [venueABookDepth.id],
    csvColumns: ['timestamp', 'percentage', 'depth', 'notional'],
    // The file gives percent (-5 … -0.2, 0.2 … 5); the store keeps basis points.
    select: `$token, ${timestampSql('timestamp')}, round(trim("percentage")::DOUBLE * 100)::INTEGER, ${num('depth')}, ${num('notional')}`,
    orderBy: 'time, percentage',
  },
  metrics: {
    kind: 'metrics',
    period: 'day',
    table: venueAOpenInterest.table.name,
    datasets: [venueAOpenInterest.id, venueALongShortRatios.id],
    csvColumns: [
      'create_time',
      'symbol',
      'sum_open_interest',
      'sum_open_interest_value',
      'count_toptrader_long_short_ratio',
      'sum_toptrader_long_short_ratio',
      'count_long_short_ratio',
      'sum_taker_long_short_vol_ratio',
    ],
    // count_* are account ratios, sum_* position/volume ratios (the top 20% of traders for "toptrader").
    select: `$token, ${timestampSql('create_time')}, ${num('sum_open_interest')}, ${num('sum_open_interest_value')},
      ${num('count_toptrader_long_short_ratio')}, ${num('sum_toptrader_long_short_ratio')}, ${num('count_long_short_ratio')}, ${num('sum_taker_long_short_vol_ratio')}`,
    orderBy: 'time',
  },
  fundingRate: {
    kind: 'fundingRate',
    period: 'month',
    table: venueAFundingRate.table.name,
    datasets: [venueAFundingRate.id],
    csvColumns: ['calc_time', 'funding_interval_hours', 'last_funding_rate'],
    select: `$token, ${timestampSql('calc_time')}, ${num('last_funding_rate')}, nullif(trim("funding_interval_hours"), '')::INTEGER`,
    orderBy: 'time',
  },
};

/** The archive path of one file: `symbol` is the market (BTCUSDT), `period` YYYY-MM-DD or YYYY-MM. */
export function archivePath(kind: VenueAKind, symbol: string, period: string): string {
  switch (kind) {
    case 'klines':
      return `data/futures/um/daily/klines/${symbol}/1m/${symbol}-1m-${period}.zip`;
    case 'fundingRate':
      return `data/futures/um/monthly/fundingRate/${symbol}/${symbol}-fundingRate-${period}.zip`;
    default:
      return `data/futures/um/daily/${kind}/${symbol}/${symbol}-${kind}-${period}.zip`;
  }
}

/** `sha256  filename` → the hex digest, or null when the text is not a checksum file. */
export function parseChecksum(text: string): string | null {
  const m = /^\s*([0-9a-fA-F]{64})\b/.exec(text);
  return m ? m[1]!.toLowerCase() : null;
}

/** The file name a checksum file names (`sha256  name`, or `sha256 *name` in binary mode), or null when it names none. */
export function checksumFileName(text: string): string | null {
  const m = /^\s*[0-9a-fA-F]{64}\s+\*?(\S+)/.exec(text);
  return m ? m[1]! : null;
}
