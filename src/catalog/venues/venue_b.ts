/** venue_b: a perpetual DEX with public node data (fills by block) and an info API. */
import type { StoredColumn, TableDef, VenueEndpoint } from '../types.ts';
import { candleColumns, venueParams, venueTime, windowParam } from './common.ts';

const base = { family: 'exchange', protocol: 'venue_b', formats: ['csv', 'parquet'], defaultFormat: 'csv', filters: {}, served: true, maxDays: 31 } as const;
const key: StoredColumn[] = [
  { name: 'token', type: 'string' },
  { name: 'time', type: 'timestamp' },
];
const table = (name: string, columns: StoredColumn[], orderBy: string[] = ['token', 'time']): TableDef => ({ name, columns: [...key, ...columns], orderBy });
const walletParam = { wallet: { type: 'string', list: true, description: 'Wallet address(es), 0x hex; a comma-separated list means any of them.' } } as const;
const walletFilter = { wallet: { kind: 'address', columns: ['wallet'] } } as const;

export const venueBRawTrades: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_b/raw_trades',
  path: '/v1/exchange/venue_b/raw_trades',
  event: 'raw_trades',
  summary: 'Every trade, from the taker side of fills.',
  cost: { kind: 'days', perDay: 1000, minimum: 100 },
  table: table(
    'venue_b_trades',
    [
      { name: 'tid', type: 'int64' },
      { name: 'price', type: 'float64' },
      { name: 'amount', type: 'float64' },
      { name: 'buy', type: 'boolean' },
      { name: 'hash', type: 'string' },
    ],
    ['token', 'time', 'tid'],
  ),
  params: venueParams,
  columns: [
    venueTime,
    { name: 'price', type: 'double', description: 'Trade price in USD.' },
    { name: 'amount', type: 'double', description: 'Base-asset quantity.' },
    { name: 'buy', type: 'boolean', description: 'true when the taker bought.' },
  ],
};

export const venueBOhlcv: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_b/ohlcv',
  path: '/v1/exchange/venue_b/ohlcv',
  event: 'ohlcv',
  formats: ['csv', 'parquet', 'json'],
  summary: 'Candles, built from 1-minute candles.',
  cost: { kind: 'days', perDay: 100, minimum: 100 },
  table: table('venue_b_candles', [
    { name: 'open', type: 'float64' },
    { name: 'high', type: 'float64' },
    { name: 'low', type: 'float64' },
    { name: 'close', type: 'float64' },
    { name: 'volume', type: 'float64' },
    { name: 'trade_count', type: 'int64' },
  ]),
  params: { ...venueParams, ...windowParam },
  columns: candleColumns,
};

export const venueBFills: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_b/fills',
  path: '/v1/exchange/venue_b/fills',
  event: 'fills',
  summary: 'Fills of every wallet: both sides of each trade.',
  cost: { kind: 'days', perDay: 1000, minimum: 100 },
  table: table(
    'venue_b_fills',
    [
      { name: 'wallet', type: 'string' },
      { name: 'price', type: 'float64' },
      { name: 'size', type: 'float64' },
      { name: 'side', type: 'string' },
      { name: 'dir', type: 'string' },
      { name: 'start_position', type: 'float64' },
      { name: 'closed_pnl', type: 'float64' },
      { name: 'fee', type: 'float64' },
      { name: 'fee_token', type: 'string' },
      { name: 'crossed', type: 'boolean' },
      { name: 'tid', type: 'int64' },
      { name: 'oid', type: 'int64' },
      { name: 'hash', type: 'string' },
      { name: 'block_number', type: 'int64' },
    ],
    ['token', 'time', 'tid', 'wallet'],
  ),
  params: { ...venueParams, ...walletParam },
  filters: walletFilter,
  columns: [
    venueTime,
    { name: 'token', type: 'string', description: 'Coin.' },
    { name: 'wallet', type: 'string', description: 'Wallet address.' },
    { name: 'price', type: 'double', description: 'Fill price.' },
    { name: 'size', type: 'double', description: 'Fill size, base units.' },
    { name: 'side', type: 'string', description: 'B (bid, buy) or A (ask, sell).' },
    { name: 'dir', type: 'string', description: 'Open Long, Close Short, …' },
    { name: 'start_position', type: 'double', description: 'Position size before the fill.' },
    { name: 'closed_pnl', type: 'double', description: 'Realised PnL of the fill.' },
    { name: 'fee', type: 'double', description: 'Fee paid.' },
    { name: 'fee_token', type: 'string', description: 'Fee currency.' },
    { name: 'crossed', type: 'boolean', description: 'true when this side was the taker.' },
    { name: 'tid', type: 'integer', description: 'Trade id.' },
    { name: 'oid', type: 'integer', description: 'Order id.' },
    { name: 'hash', type: 'string', description: 'Transaction hash.' },
    { name: 'block_number', type: 'integer', description: 'Block of the fill on the venue chain.' },
  ],
};

export const venueBPositions: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_b/positions',
  path: '/v1/exchange/venue_b/positions',
  event: 'positions',
  summary: 'Position snapshots per wallet and token, derived from fills and valued at the mark.',
  cost: { kind: 'days', perDay: 100, minimum: 100 },
  table: table(
    'venue_b_positions',
    [
      { name: 'wallet', type: 'string' },
      { name: 'side', type: 'string' },
      { name: 'size', type: 'float64' },
      { name: 'avg_entry', type: 'float64' },
      { name: 'mark_price', type: 'float64' },
      { name: 'unrealized_pnl', type: 'float64' },
    ],
    ['token', 'time', 'wallet'],
  ),
  params: { ...venueParams, ...walletParam },
  filters: walletFilter,
  columns: [
    venueTime,
    { name: 'wallet', type: 'string', description: 'Wallet address.' },
    { name: 'token', type: 'string', description: 'Coin.' },
    { name: 'side', type: 'string', description: 'long, short or flat.' },
    { name: 'size', type: 'double', description: 'Absolute position size, base units.' },
    { name: 'avg_entry', type: 'double', description: 'Average entry price.' },
    { name: 'mark_price', type: 'double', description: 'Mark price at the snapshot.' },
    { name: 'unrealized_pnl', type: 'double', description: 'Unrealised PnL at the mark.' },
  ],
};

export const venueBFunding: VenueEndpoint = {
  ...base,
  id: 'exchange/venue_b/funding',
  path: '/v1/exchange/venue_b/funding',
  event: 'funding',
  summary: 'Hourly funding rates.',
  cost: { kind: 'days', perDay: 10, minimum: 100 },
  table: table('venue_b_funding', [
    { name: 'rate', type: 'float64' },
    { name: 'premium', type: 'float64' },
  ]),
  params: venueParams,
  columns: [venueTime, { name: 'token', type: 'string', description: 'Coin.' }, { name: 'rate', type: 'double', description: 'Funding rate for the hour, as a fraction.' }],
};

export const venueBEndpoints = [venueBRawTrades, venueBOhlcv, venueBFills, venueBPositions, venueBFunding];
