/**
 * Coverage: the inclusive block (or time) intervals that ingestion completed,
 * per dataset and scope. Writers record coverage in the same transaction as
 * the rows, so the store never claims a range it does not hold; the query side
 * reads it to refuse ranges that were never ingested.
 */
import type { Store, Tx } from './createStore.ts';

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

/** Sorted, merged union of intervals. */
export function union(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.lo - b.lo);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.lo <= last.hi + 1) out[out.length - 1] = { lo: last.lo, hi: Math.max(last.hi, i.hi) };
    else out.push(i);
  }
  return out;
}

type Reader = Pick<Store, 'all'> | Pick<Tx, 'all'>;

export async function coveredIntervals(store: Reader, dataset: string, scope: string): Promise<Interval[]> {
  const rows = await store.all<{ lo: bigint; hi: bigint }>(
    `SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope ORDER BY lo`,
    { dataset, scope },
  );
  return rows.map((r) => ({ lo: Number(r.lo), hi: Number(r.hi) }));
}

/** Records [lo, hi] as covered, merging with touching intervals. Call inside the transaction that wrote the rows. */
export async function addCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  const touching = await tx.all<{ lo: bigint; hi: bigint }>(
    `SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`,
    { dataset, scope, lo, hi },
  );
  const mlo = Math.min(lo, ...touching.map((r) => Number(r.lo)));
  const mhi = Math.max(hi, ...touching.map((r) => Number(r.hi)));
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $lo, $hi)`, { dataset, scope, lo: mlo, hi: mhi });
}

/**
 * `addCoverage` for several datasets at once, in three statements whatever
 * their number: ingestion records a dozen datasets per committed batch.
 * Dataset names are ours (catalog ids), never user text.
 */
export async function addCoverageMany(tx: Tx, datasets: readonly string[], scope: string, lo: number, hi: number): Promise<void> {
  if (datasets.length === 0) return;
  const list = datasets.map((d) => `'${d.replaceAll("'", "''")}'`).join(', ');
  const hit = `dataset IN (${list}) AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`;
  await tx.run(`CREATE OR REPLACE TEMP TABLE coverage_merge AS
    SELECT d.dataset, least($lo, min(c.lo)) AS lo, greatest($hi, max(c.hi)) AS hi
    FROM (SELECT unnest([${list}]) AS dataset) d LEFT JOIN (SELECT * FROM coverage WHERE ${hit}) c USING (dataset)
    GROUP BY d.dataset`, { scope, lo, hi });
  await tx.run(`DELETE FROM coverage WHERE ${hit}`, { scope, lo, hi });
  await tx.run(`INSERT INTO coverage SELECT dataset, $scope, lo, hi FROM coverage_merge`, { scope });
  await tx.run(`DROP TABLE coverage_merge`);
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
