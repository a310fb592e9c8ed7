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
 * Columns are named here and read by the store as their CsvValue says, so the
 * header and headerless variants load the same way, and timestamps are read
 * as seconds, milliseconds or microseconds by their magnitude (the archive
 * moved spot files from ms to µs on 2025-01-01; futures files may follow).
 */
import type { CsvValue } from '../../store/types.ts';
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
  /** The table's columns in order, each read from the CSV columns' text or the token. */
  readonly values: readonly CsvValue[];
  readonly orderBy: readonly string[];
}

const col =
  (kind: Exclude<CsvValue['kind'], 'token'>) =>
  (column: string): CsvValue => ({ kind, column });
const time = col('timestamp');
const num = col('double');
const TOKEN: CsvValue = { kind: 'token' };

export const VENUE_A_SPECS: Readonly<Record<VenueAKind, VenueAKindSpec>> = {
  trades: {
    kind: 'trades',
    period: 'day',
    table: venueARawTrades.table.name,
    datasets: [venueARawTrades.id],
    csvColumns: ['id', 'price', 'qty', 'quote_qty', 'time', 'is_buyer_maker'],
    // buy = the taker bought = the buyer was not the maker.
    values: [TOKEN, time('time'), col('bigint')('id'), num('price'), num('qty'), num('quote_qty'), col('negatedBoolean')('is_buyer_maker')],
    orderBy: ['time', 'id'],
  },
  klines: {
    kind: 'klines',
    period: 'day',
    table: venueAOhlcv.table.name,
    datasets: [venueAOhlcv.id],
    csvColumns: ['open_time', 'open', 'high', 'low', 'close', 'volume', 'close_time', 'quote_volume', 'count', 'taker_buy_volume', 'taker_buy_quote_volume', 'ignore'],
    values: [TOKEN, time('open_time'), num('open'), num('high'), num('low'), num('close'), num('volume'), num('quote_volume'), col('bigint')('count'), num('taker_buy_volume')],
    orderBy: ['time'],
  },
  bookDepth: {
    kind: 'bookDepth',
    period: 'day',
    table: venueABookDepth.table.name,
    datasets: [venueABookDepth.id],
    csvColumns: ['timestamp', 'percentage', 'depth', 'notional'],
    // The file gives percent (-5 … -0.2, 0.2 … 5); the store keeps basis points.
    values: [TOKEN, time('timestamp'), col('basisPoints')('percentage'), num('depth'), num('notional')],
    orderBy: ['time', 'percentage'],
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
    values: [
      TOKEN,
      time('create_time'),
      num('sum_open_interest'),
      num('sum_open_interest_value'),
      num('count_toptrader_long_short_ratio'),
      num('sum_toptrader_long_short_ratio'),
      num('count_long_short_ratio'),
      num('sum_taker_long_short_vol_ratio'),
    ],
    orderBy: ['time'],
  },
  fundingRate: {
    kind: 'fundingRate',
    period: 'month',
    table: venueAFundingRate.table.name,
    datasets: [venueAFundingRate.id],
    csvColumns: ['calc_time', 'funding_interval_hours', 'last_funding_rate'],
    values: [TOKEN, time('calc_time'), num('last_funding_rate'), col('integer')('funding_interval_hours')],
    orderBy: ['time'],
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
