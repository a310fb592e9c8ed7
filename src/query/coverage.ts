/**
 * Honest about gaps: a query may only run over ranges that ingestion
 * completed. Anything else is refused with the exact missing ranges, never
 * answered as if it were empty.
 */
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/types.ts';
import { blocksAround, coveredIntervals, gaps, type Interval } from '../store/coverage.ts';
import type { QueryRange } from './range.ts';
import { isoSeconds } from './time.ts';

const describe = (g: readonly Interval[]) =>
  g
    .slice(0, 5)
    .map((i) => (i.lo === i.hi ? `${i.lo}` : `${i.lo}–${i.hi}`))
    .join(', ') + (g.length > 5 ? ', …' : '');

/**
 * Throws invalid_range when the chain range is not fully ingested for
 * `dataset` on `network`. A time range is mapped to blocks through the
 * `blocks` table: the block before `since` and the first block at or after
 * `until` must both be known, and every block between them covered.
 */
export async function assertChainCoverage(store: Store, dataset: string, network: string, range: QueryRange): Promise<void> {
  const covered = await coveredIntervals(store, dataset, network);
  const have = covered.length ? `; the store holds ${dataset} on ${network} for blocks ${describe(covered)}` : `; nothing of ${dataset} on ${network} has been ingested`;
  if (range.kind === 'blocks') {
    const missing = gaps(range.start, range.end, covered);
    if (missing.length === 0) return;
    throw new ApiError('invalid_range', `blocks ${describe(missing)} of ${network} were never ingested for ${dataset}${have}`, {
      missing_blocks: missing.map((g) => [g.lo, g.hi]),
    });
  }
  const edges = await blocksAround(store, network, range.since, range.until);
  const timeText = `${isoSeconds(range.since)} to ${isoSeconds(range.until)}`;
  if (edges.before === null || edges.after === null) {
    const side = edges.before === null ? `before ${isoSeconds(range.since)}` : `at or after ${isoSeconds(range.until)}`;
    throw new ApiError('invalid_range', `the time range ${timeText} reaches past the ingested blocks of ${network}: no block ${side} is known${have}`, {
      missing_time: [isoSeconds(range.since), isoSeconds(range.until)],
    });
  }
  const lo = Number(edges.before) + 1;
  const hi = Number(edges.after) - 1;
  if (hi < lo) return;
  const missing = gaps(lo, hi, covered);
  if (missing.length === 0) return;
  throw new ApiError('invalid_range', `the time range ${timeText} needs blocks ${describe(missing)} of ${network}, never ingested for ${dataset}${have}`, {
    missing_blocks: missing.map((g) => [g.lo, g.hi]),
  });
}
