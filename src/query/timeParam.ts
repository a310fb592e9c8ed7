import { ApiError } from '../errors/apiError.ts';
import { parseTime } from './time.ts';

/** A `since` or `until` parameter as epoch milliseconds, or the invalid_parameter error naming it. */
export function timeParam(name: 'since' | 'until', value: string): number {
  const ms = parseTime(value);
  if (ms === null) throw new ApiError('invalid_parameter', `${name}='${value}' is not a time: use Unix seconds, ISO 8601 with Z or an offset, or YYYY-MM-DD`, { parameter: name });
  return ms;
}
