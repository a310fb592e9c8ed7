/**
 * `X-Chainq-Covered-Range` (docs/api.md, "Covered range"): the range a data
 * answer is complete for. Planning has already checked that the store covers
 * all of it, so the requested range is the covered one; the header lets a
 * client that stores answers know exactly which range a file stands for.
 */
import { COVERED_RANGE_HEADER } from '../catalog/responseHeaders.ts';
import type { QueryRange } from './range.ts';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** `blocks=FIRST-LAST` (both included) or `time=SINCE/UNTIL` (ISO 8601, until excluded), then `; network=` or `; token=`. */
export function coveredRangeHeader(range: QueryRange, scope: { network?: string; token?: string }): Record<string, string> {
  const r = range.kind === 'blocks' ? `blocks=${range.start}-${range.end}` : `time=${iso(range.since)}/${iso(range.until)}`;
  const s = scope.network !== undefined ? `; network=${scope.network}` : scope.token !== undefined ? `; token=${encodeURIComponent(scope.token)}` : '';
  return { [COVERED_RANGE_HEADER]: r + s };
}
