/**
 * The time range of a venue query: `since` and `until` are both required
 * (docs/venues-tron-btc.md, "Exchange venues") and may span at most the endpoint's maximum number of days.
 */
import { SECONDS_PER_DAY } from '../catalog/common.ts';
import type { VenueEndpoint } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import type { QueryRange } from './range.ts';
import { parseTime } from './time.ts';

export type TimeRange = Extract<QueryRange, { kind: 'time' }>;

export function parseVenueRange(endpoint: VenueEndpoint, since: string | undefined, until: string | undefined, unlimited = false): TimeRange {
  // The schema requires both; this guards planners called without it.
  if (since === undefined) throw new ApiError('missing_parameter', 'since is required', { parameter: 'since' });
  if (until === undefined) throw new ApiError('missing_parameter', 'until is required', { parameter: 'until' });
  const lo = parseTime(since);
  const hi = parseTime(until);
  for (const [name, value, ms] of [
    ['since', since, lo],
    ['until', until, hi],
  ] as const) {
    if (ms === null) {
      throw new ApiError('invalid_parameter', `${name}='${value}' is not a time: use Unix seconds, ISO 8601 with Z or an offset, or YYYY-MM-DD`, { parameter: name });
    }
  }
  if (hi! <= lo!) throw new ApiError('invalid_range', `until (${until}) must be after since (${since})`, { parameter: 'until' });
  const seconds = (hi! - lo!) / 1000;
  const max = endpoint.maxDays * SECONDS_PER_DAY;
  if (!unlimited && seconds > max) {
    throw new ApiError('range_too_large', `the range spans ${(seconds / SECONDS_PER_DAY).toFixed(2)} days, over the ${endpoint.maxDays}-day limit of ${endpoint.path}; split it into several queries`, {
      parameter: 'until',
      limit: max,
      requested: seconds,
    });
  }
  return { kind: 'time', since: lo!, until: hi! };
}
