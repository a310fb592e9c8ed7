import type { OutputColumn, Params } from '../types.ts';

export const venueParams: Params = {
  token: { type: 'string', required: true, case: 'upper', description: 'Token symbol, e.g. BTC; venue_a serves the <TOKEN>USDT perpetual.' },
  since: { type: 'string', required: true, description: 'Start, inclusive: ISO 8601, Unix seconds, or YYYY-MM-DD.' },
  until: { type: 'string', required: true, description: 'End, exclusive: ISO 8601, Unix seconds, or YYYY-MM-DD.' },
};

export const WINDOWS = ['1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;

export const windowParam: Params = {
  window: { type: 'string', enum: WINDOWS, default: '1h', description: 'Candle width.' },
};

/** Venue times keep milliseconds: exchanges stamp events to the millisecond. */
export const venueTime: OutputColumn = {
  name: 'time',
  type: 'string',
  expr: { kind: 'iso_time', arg: { kind: 'column', name: 'time' }, millis: true },
  description: 'Event time, ISO 8601 UTC with milliseconds.',
};

export const candleColumns: readonly OutputColumn[] = [
  { name: 'time', type: 'string', description: 'Window open time, ISO 8601 UTC.' },
  { name: 'open', type: 'double', description: 'First trade price of the window.' },
  { name: 'high', type: 'double', description: 'Highest trade price.' },
  { name: 'low', type: 'double', description: 'Lowest trade price.' },
  { name: 'close', type: 'double', description: 'Last trade price.' },
  { name: 'volume', type: 'double', description: 'Base-asset volume.' },
  { name: 'trade_count', type: 'integer', description: 'Number of trades.' },
];
