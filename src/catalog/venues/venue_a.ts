/** venue_a: a USDT-margined perpetual futures exchange; markets are <TOKEN>USDT (docs/venues-tron-btc.md, "Exchange venues"). */
import type { OutputColumn, StoredColumn, TableDef, VenueEndpoint } from '../types.ts';
import { candleColumns, venueParams, venueTime, windowParam } from './common.ts';

const base = { family: 'exchange', protocol: 'venue_a', formats: ['csv', 'parquet'], defaultFormat: 'csv', filters: {}, served: true } as const;
const key: StoredColumn[] = [
  { name: 'token', type: 'string' },
  { name: 'time', type: 'timestamp' },
];
const table = (name: string, columns: StoredColumn[], orderBy: string[] = ['token', 'time']): TableDef => ({ name, columns: [...key, ...columns], orderBy });

const metricsTable = table('venue_a_metrics', [
  { name: 'open_interest', type: 'float64' },
  { name: 'open_interest_value', type: 'float64' },
  { name: 'top_trader_count_ratio', type: 'float64' },
  { name: 'top_trader_vol_ratio', type: 'float64' },
  { name: 'long_short_count_ratio', type: 'float64' },
  { name: 'taker_long_short_vol_ratio', type: 'float64' },
]);
const exchangeCol: OutputColumn = { name: 'exchange', type: 'integer', expr: { kind: 'literal', value: 1, type: 'integer' }, description: 'Exchange code: 1 for venue_a.' };

export const venueARawTrades: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/raw_trades',
  path: '/v1/exchange/venue_a/raw_trades',
  event: 'raw_trades',
  summary: 'Every trade of the <TOKEN>USDT perpetual.',
  maxDays: 7,
  cost: { kind: 'days', perDay: 1000, minimum: 0 },
  table: table(
    'venue_a_trades',
    [
      { name: 'id', type: 'int64' },
      { name: 'price', type: 'float64' },
      { name: 'amount', type: 'float64' },
      { name: 'quote_amount', type: 'float64' },
      { name: 'buy', type: 'boolean' },
    ],
    ['token', 'time', 'id'],
  ),
  params: { ...venueParams, skip_id: { type: 'boolean', default: false, description: 'Leave out the id column.' } },
  columns: [
    venueTime,
    { name: 'price', type: 'double', description: 'Trade price in USDT.' },
    { name: 'amount', type: 'double', description: 'Base-asset quantity.' },
    { name: 'buy', type: 'boolean', description: 'true when the taker bought (the buyer was not the maker).' },
    { name: 'id', type: 'integer', description: 'Exchange trade id.' },
  ],
};

export const venueAOhlcv: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/ohlcv',
  path: '/v1/exchange/venue_a/ohlcv',
  event: 'ohlcv',
  formats: ['csv', 'parquet', 'json'],
  summary: 'Candles of the <TOKEN>USDT perpetual, built from 1-minute candles.',
  maxDays: 31,
  cost: { kind: 'days', perDay: 100, minimum: 0 },
  table: table('venue_a_klines', [
    { name: 'open', type: 'float64' },
    { name: 'high', type: 'float64' },
    { name: 'low', type: 'float64' },
    { name: 'close', type: 'float64' },
    { name: 'volume', type: 'float64' },
    { name: 'quote_volume', type: 'float64' },
    { name: 'trade_count', type: 'int64' },
    { name: 'taker_buy_volume', type: 'float64' },
  ]),
  params: { ...venueParams, ...windowParam },
  columns: candleColumns,
};

export const venueABookDepth: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/book_depth',
  path: '/v1/exchange/venue_a/book_depth',
  event: 'book_depth',
  summary: 'Cumulative order-book depth at 12 fixed distances from mid, about every 30 s.',
  maxDays: 31,
  cost: { kind: 'days', perDay: 100, minimum: 0 },
  table: table(
    'venue_a_book_depth',
    [
      { name: 'percentage', type: 'int32' },
      { name: 'depth', type: 'float64' },
      { name: 'value', type: 'float64' },
    ],
    ['token', 'time', 'percentage'],
  ),
  params: venueParams,
  columns: [
    venueTime,
    { name: 'token', type: 'string', description: 'Token symbol.' },
    { name: 'percentage', type: 'integer', description: 'Distance from mid in basis points: -500…-20 bids, 20…500 asks.' },
    { name: 'depth', type: 'double', description: 'Cumulative base quantity up to that distance.' },
    { name: 'value', type: 'double', description: 'Cumulative notional in USDT up to that distance.' },
    exchangeCol,
  ],
};

export const venueAOpenInterest: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/open_interest',
  path: '/v1/exchange/venue_a/open_interest',
  event: 'open_interest',
  summary: 'Open interest, every 5 minutes.',
  maxDays: 31,
  cost: { kind: 'days', perDay: 10, minimum: 0 },
  table: metricsTable,
  params: venueParams,
  columns: [
    venueTime,
    { name: 'token', type: 'string', description: 'Token symbol.' },
    { name: 'open_interest', type: 'double', description: 'Open interest in contracts (base units).' },
    { name: 'open_interest_value', type: 'double', description: 'Open interest in USDT.' },
    exchangeCol,
  ],
};

export const venueAFundingRate: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/funding_rate',
  path: '/v1/exchange/venue_a/funding_rate',
  event: 'funding_rate',
  summary: 'Funding rates, at each funding time (typically every 8 hours).',
  maxDays: 31,
  cost: { kind: 'days', perDay: 10, minimum: 0 },
  table: table('venue_a_funding', [
    { name: 'rate', type: 'float64' },
    { name: 'interval_hours', type: 'int32' },
  ]),
  params: venueParams,
  columns: [venueTime, { name: 'token', type: 'string', description: 'Token symbol.' }, { name: 'rate', type: 'double', description: 'Funding rate for the interval, as a fraction.' }],
};

export const venueALongShortRatios: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_a/long_short_ratios',
  path: '/v1/exchange/venue_a/long_short_ratios',
  event: 'long_short_ratios',
  summary: 'Long/short ratios, every 5 minutes.',
  maxDays: 31,
  cost: { kind: 'days', perDay: 10, minimum: 0 },
  table: metricsTable,
  params: venueParams,
  columns: [
    venueTime,
    { name: 'token', type: 'string', description: 'Token symbol.' },
    { name: 'top_trader_count_ratio', type: 'double', description: 'Long/short account ratio of the top 20% of traders.' },
    { name: 'top_trader_vol_ratio', type: 'double', description: 'Long/short position ratio of the top 20% of traders.' },
    { name: 'long_short_count_ratio', type: 'double', description: 'Global long/short account ratio.' },
    { name: 'taker_long_short_vol_ratio', type: 'double', description: 'Taker buy/sell volume ratio.' },
    exchangeCol,
  ],
};

export const venueAEndpoints = [venueARawTrades, venueAOhlcv, venueABookDepth, venueAOpenInterest, venueAFundingRate, venueALongShortRatios];
