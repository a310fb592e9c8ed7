/**
 * Honest about gaps: a query may only run over ranges that ingestion
 * completed. Anything else is refused with the exact missing ranges, never
 * answered as if it were empty.
 */
import { ApiError } from '../errors/apiError.ts';
import type { Store, Tx } from '../store/createStore.ts';
import type { QueryRange } from './range.ts';
import { isoSeconds, toSqlTimestamp } from './time.ts';

export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/** The parts of [lo, hi] that `covered` (sorted, inclusive) does not contain. */
export function gaps(lo: number, hi: number, covered: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let next = lo;
  for (const c of covered) {
    if (c.hi < next) continue;
    if (c.lo > hi) break;
    if (c.lo > next) out.push({ lo: next, hi: Math.min(hi, c.lo - 1) });
    next = Math.max(next, c.hi + 1);
    if (next > hi) break;
  }
  if (next <= hi) out.push({ lo: next, hi });
  return out;
}

export async function coveredIntervals(store: Store, dataset: string, scope: string): Promise<Interval[]> {
  const rows = await store.all<{ lo: bigint; hi: bigint }>(
    `SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope ORDER BY lo`,
    { dataset, scope },
  );
  return rows.map((r) => ({ lo: Number(r.lo), hi: Number(r.hi) }));
}

/** Records [lo, hi] as covered, merging with touching intervals. Call inside the transaction that wrote the rows. */
export async function addCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  // Rows are appended at the table's end. If they are not past everything held
  // before, the table's physical order no longer follows the data's order.
  const [prev] = await tx.all<{ max: bigint | null }>(`SELECT max(hi) AS max FROM coverage WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  if (prev?.max != null && lo <= Number(prev.max)) await markUnordered(tx, dataset, scope);
  const touching = await tx.all<{ lo: bigint; hi: bigint }>(
    `SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`,
    { dataset, scope, lo, hi },
  );
  const mlo = Math.min(lo, ...touching.map((r) => Number(r.lo)));
  const mhi = Math.max(hi, ...touching.map((r) => Number(r.hi)));
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $lo, $hi)`, { dataset, scope, lo: mlo, hi: mhi });
}

async function markUnordered(tx: Tx, dataset: string, scope: string): Promise<void> {
  await tx.run(`DELETE FROM dataset_order WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  await tx.run(`INSERT INTO dataset_order VALUES ($dataset, $scope, true)`, { dataset, scope });
}

/**
 * Whether the rows of a dataset and scope sit in the table in their output
 * order, so that a query may stream them without sorting (DuckDB preserves
 * insertion order for queries without ORDER BY).
 */
export async function isPhysicallyOrdered(store: Store, dataset: string, scope: string): Promise<boolean> {
  const rows = await store.all<{ unordered: boolean }>(`SELECT unordered FROM dataset_order WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  return !rows.some((r) => r.unordered);
}

/** Removes [lo, hi] from the coverage (a reorg or a re-ingest), splitting intervals. */
export async function removeCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  const hit = await tx.all<{ lo: bigint; hi: bigint }>(
    `SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`,
    { dataset, scope, lo, hi },
  );
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`, { dataset, scope, lo, hi });
  for (const r of hit) {
    if (Number(r.lo) < lo) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: Number(r.lo), b: lo - 1 });
    if (Number(r.hi) > hi) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: hi + 1, b: Number(r.hi) });
  }
}

const describe = (g: readonly Interval[]) => g.slice(0, 5).map((i) => (i.lo === i.hi ? `${i.lo}` : `${i.lo}–${i.hi}`)).join(', ') + (g.length > 5 ? ', …' : '');

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
  const [edges] = await store.all<{ before: bigint | null; after: bigint | null }>(
    `SELECT (SELECT max(number) FROM blocks WHERE network = $network AND time < CAST($since AS TIMESTAMP)) AS before,
            (SELECT min(number) FROM blocks WHERE network = $network AND time >= CAST($until AS TIMESTAMP)) AS after`,
    { network, since: toSqlTimestamp(range.since), until: toSqlTimestamp(range.until) },
  );
  const timeText = `${isoSeconds(range.since)} to ${isoSeconds(range.until)}`;
  if (edges?.before == null || edges.after == null) {
    const side = edges?.before == null ? `before ${isoSeconds(range.since)}` : `at or after ${isoSeconds(range.until)}`;
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
