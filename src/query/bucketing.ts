/**
 * `group_by` and `period` → how rows fall into buckets (docs/aggregates.md, "Periods").
 * Time buckets are aligned to the Unix epoch in UTC; week buckets to the
 * first Monday after it, so that weeks start on Monday. Block buckets are
 * [k·period, (k+1)·period).
 */
import { DEFAULT_PERIODS, LISTED_TIME_PERIODS, type GroupBy } from '../catalog/derive/aggregate.ts';
import type { ChainEndpoint } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';

export type Bucketing =
  | { readonly kind: 'time'; readonly period: string; readonly widthMs: number; readonly originMs: number }
  | { readonly kind: 'block_number'; readonly period: string; readonly width: number };

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** 1970-01-05T00:00Z, the first Monday after the epoch (a Thursday). */
const isUnit = (u: string | undefined): u is keyof typeof UNIT_MS => u !== undefined && Object.hasOwn(UNIT_MS, u);

export const MONDAY_ORIGIN_MS = 4 * UNIT_MS.d;

/** A count and a lowercase unit; up to six digits keeps every bucket edge a valid timestamp. */
const TIME_PERIOD = /^([1-9]\d{0,5})([mhdw])$/;
/** A positive block count, up to a trillion blocks. */
const BLOCK_PERIOD = /^[1-9]\d{0,11}$/;

const EVM_TIME_ACCEPTED = ['<n>m', '<n>h', '<n>d', '<n>w'];

function reject(groupBy: GroupBy, period: string, accepted: string, supported: readonly string[]): never {
  throw new ApiError('invalid_parameter', `period='${period}' is not accepted with group_by=${groupBy}; accepted values: ${accepted}`, {
    parameter: 'period',
    supported: [...supported],
  });
}

/** The bucketing of a request; `period` undefined takes the endpoint's default, where it has one. */
export function parseBucketing(e: ChainEndpoint, groupBy: GroupBy, period: string | undefined): Bucketing {
  const evm = e.family === 'evm';
  if (period === undefined) {
    if (evm) throw new ApiError('missing_parameter', 'period is required', { parameter: 'period' });
    period = DEFAULT_PERIODS[groupBy];
  }
  const text = period.trim();
  if (groupBy === 'block_number') {
    if (!BLOCK_PERIOD.test(text)) reject(groupBy, period, 'a positive integer number of blocks, e.g. 1000', ['<positive integer>']);
    return { kind: 'block_number', period: text, width: Number(text) };
  }
  if (!evm && !LISTED_TIME_PERIODS.some((p) => p === text)) {
    reject(groupBy, period, LISTED_TIME_PERIODS.join(', '), LISTED_TIME_PERIODS);
  }
  const m = TIME_PERIOD.exec(text);
  if (!m) {
    reject(groupBy, period, '<n>m, <n>h, <n>d or <n>w (minutes, hours, days, weeks) with n a whole number from 1 to 999999, e.g. 1m, 15m, 2h, 1d, 1w', EVM_TIME_ACCEPTED);
  }
  const unit = m[2];
  if (!isUnit(unit)) throw new Error(`period unit ${unit} unknown`);
  return { kind: 'time', period: text, widthMs: Number(m[1]) * UNIT_MS[unit], originMs: unit === 'w' ? MONDAY_ORIGIN_MS : 0 };
}
