/**
 * Checkpoints of venue data: coverage intervals per endpoint dataset and
 * token, in epoch milliseconds. The store writes them with the rows that
 * replace a period's rows (`store.venues`), so a period is either fully
 * stored and covered, or absent.
 */
import { coveredIntervals, gaps } from '../../store/coverage.ts';
import type { Store } from '../../store/types.ts';

/** true when every dataset covers [lo, hi] for this token. */
export async function isCovered(store: Store, datasets: readonly string[], token: string, lo: number, hi: number): Promise<boolean> {
  for (const d of datasets) if (gaps(lo, hi, await coveredIntervals(store, d, token)).length > 0) return false;
  return true;
}
