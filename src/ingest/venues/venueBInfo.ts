/**
 * venue_b's public info API (POST /info, JSON): 1-minute candles from
 * `candleSnapshot` and funding from `fundingHistory`. Numbers arrive as
 * decimal strings.
 */
import { compileSchema } from '../../utils/jsonSchema.ts';
import { postJson, type HttpOptions } from '../http/fetchWithRetry.ts';

export const VENUE_B_DEFAULT_INFO_URL = 'https://api.hyperliquid.xyz/info';

/** candleSnapshot keeps only the most recent 5000 candles of each interval. */
export const CANDLE_HISTORY = 5000;

export interface Candle {
  /** Open time, ms. */
  readonly t: number;
  /** Close time, ms. */
  readonly T: number;
  readonly s: string;
  readonly i: string;
  readonly o: string;
  readonly c: string;
  readonly h: string;
  readonly l: string;
  readonly v: string;
  readonly n: number;
}

export interface FundingEntry {
  readonly coin: string;
  readonly fundingRate: string;
  readonly premium: string;
  readonly time: number;
}

export interface VenueBInfoClient {
  candles(coin: string, startTime: number, endTime: number): Promise<Candle[]>;
  /** Every funding entry in [startTime, endTime], following pages until the API has no more. */
  funding(coin: string, startTime: number, endTime: number): Promise<FundingEntry[]>;
}

const num = { type: 'number' } as const;
const str = { type: 'string' } as const;
/** A page of candles or funding entries; null when the API has none. */
const pageOf = (item: object) => ({ anyOf: [{ type: 'array', items: item }, { type: 'null' }] });
const validateCandles = compileSchema<Candle[] | null>(
  pageOf({ type: 'object', required: ['t', 'T', 's', 'i', 'o', 'c', 'h', 'l', 'v', 'n'], properties: { t: num, T: num, s: str, i: str, o: str, c: str, h: str, l: str, v: str, n: num } }),
);
const validateFunding = compileSchema<FundingEntry[] | null>(
  pageOf({ type: 'object', required: ['coin', 'fundingRate', 'premium', 'time'], properties: { coin: str, fundingRate: str, premium: str, time: num } }),
);

export function createVenueBInfoClient(url: string, http: HttpOptions): VenueBInfoClient {
  return {
    async candles(coin, startTime, endTime) {
      const out = await postJson(url, { type: 'candleSnapshot', req: { coin, interval: '1m', startTime, endTime } }, http, validateCandles);
      return (out ?? []).filter((c) => c.t >= startTime && c.t <= endTime).sort((a, b) => a.t - b.t);
    },
    async funding(coin, startTime, endTime) {
      const all: FundingEntry[] = [];
      // Each answer is capped (500 entries at the time of writing); ask again from after the last entry.
      for (let from = startTime; from <= endTime; ) {
        const page = await postJson(url, { type: 'fundingHistory', coin, startTime: from, endTime }, http, validateFunding);
        const fresh = (page ?? []).filter((f) => f.time >= from && f.time <= endTime);
        if (fresh.length === 0) break;
        all.push(...fresh);
        from = Math.max(...fresh.map((f) => f.time)) + 1;
      }
      return all.sort((a, b) => a.time - b.time);
    },
  };
}
