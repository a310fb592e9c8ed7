/**
 * Venue coverage: like chain coverage, a venue query runs only over time that
 * ingestion completed. Coverage rows use dataset = endpoint id
 * (`exchange/venue_a/raw_trades`), scope = token symbol, and lo/hi in epoch
 * milliseconds, both inclusive.
 */
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/types.ts';
import { coveredIntervals, coveredScopes, gaps, type Interval } from '../store/coverage.ts';
import type { TimeRange } from './venueRange.ts';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const span = (i: Interval) => `${iso(i.lo)} to ${iso(i.hi + 1)}`;
const list = (xs: readonly Interval[]) => xs.slice(0, 5).map(span).join(', ') + (xs.length > 5 ? ', …' : '');

export async function assertVenueCoverage(store: Store, dataset: string, token: string, range: TimeRange): Promise<void> {
  const covered = await coveredIntervals(store, dataset, token);
  if (covered.length === 0) {
    const tokens = await coveredScopes(store, dataset);
    if (tokens.length === 0) throw new ApiError('invalid_range', `nothing of ${dataset} has been ingested`, { missing_time: [[iso(range.since), iso(range.until)]] });
    throw new ApiError('unknown_token', `no ${dataset} data for token '${token}'; tokens held: ${tokens.join(', ')}`, { parameter: 'token', supported: tokens });
  }
  // [since, until) in milliseconds is [since, until - 1] inclusive.
  const missing = gaps(range.since, range.until - 1, covered);
  if (missing.length === 0) return;
  throw new ApiError('invalid_range', `${list(missing)} of ${dataset} for ${token} was never ingested; the store holds ${list(covered)}`, {
    missing_time: missing.map((g) => [iso(g.lo), iso(g.hi + 1)]),
  });
}
