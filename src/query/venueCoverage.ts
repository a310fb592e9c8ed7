/**
 * Venue coverage: like chain coverage, a venue query runs only over time that
 * ingestion completed. Coverage rows use dataset = endpoint id
 * (`exchange/venue_a/raw_trades`), scope = token symbol, and lo/hi in epoch
 * milliseconds, both inclusive.
 */
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/createStore.ts';
import { coveredIntervals, gaps, type Interval } from '../store/coverage.ts';
import type { TimeRange } from './venueRange.ts';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const span = (i: Interval) => `${iso(i.lo)} to ${iso(i.hi + 1)}`;
const list = (xs: readonly Interval[]) => xs.slice(0, 5).map(span).join(', ') + (xs.length > 5 ? ', …' : '');

export async function assertVenueCoverage(store: Store, dataset: string, token: string, range: TimeRange): Promise<void> {
  const covered = await coveredIntervals(store, dataset, token);
  if (covered.length === 0) {
    const held = await store.all<{ scope: string }>(`SELECT DISTINCT scope FROM coverage WHERE dataset = $dataset ORDER BY scope`, { dataset });
    if (held.length === 0) throw new ApiError('invalid_range', `nothing of ${dataset} has been ingested`, { missing_time: [[iso(range.since), iso(range.until)]] });
    const tokens = held.map((h) => h.scope);
    throw new ApiError('unknown_token', `no ${dataset} data for token '${token}'; tokens held: ${tokens.join(', ')}`, { parameter: 'token', supported: tokens });
  }
  // [since, until) in milliseconds is [since, until - 1] inclusive.
  const missing = gaps(range.since, range.until - 1, covered);
  if (missing.length === 0) return;
  throw new ApiError('invalid_range', `${list(missing)} of ${dataset} for ${token} was never ingested; the store holds ${list(covered)}`, {
    missing_time: missing.map((g) => [iso(g.lo), iso(g.hi + 1)]),
  });
}
