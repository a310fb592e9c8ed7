/**
 * Coverage: the intervals that ingestion completed, per dataset and scope
 * (network, or token for venues), written in the same transaction as the rows.
 * Also the physical-order flags that appending out of order sets.
 */
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import * as clickhouse from './clickhouse/lookups.ts';
import { recordChainStateClickHouse } from './clickhouse/publish.ts';
import type { CoverageRow, Store, Tx } from './types.ts';
import type { Interval } from './intervals.ts';

export { gaps, intersect, union, type Interval } from './intervals.ts';
export type { CoverageRow } from './types.ts';
import { cachedLookup } from './lookupCache.ts';

export async function coveredIntervals(store: Store, dataset: string, scope: string): Promise<Interval[]> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.coveredIntervals(ch, dataset, scope);
  return cachedLookup(store, `coveredIntervals\0${dataset}\0${scope}`, async () => {
    const rows = await store.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope ORDER BY lo`, { dataset, scope });
    return rows.map((r) => ({ lo: Number(r.lo), hi: Number(r.hi) }));
  });
}

/** Scopes (tokens, networks) that hold any coverage of `dataset`, sorted. */
export async function coveredScopes(store: Store, dataset: string): Promise<string[]> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.coveredScopes(ch, dataset);
  return cachedLookup(store, `coveredScopes\0${dataset}`, async () => {
    const rows = await store.all<{ scope: string }>(`SELECT DISTINCT scope FROM coverage WHERE dataset = $dataset ORDER BY scope`, { dataset });
    return rows.map((r) => r.scope);
  });
}

/**
 * The last known block of `network` before `sinceMs` and the first at or
 * after `untilMs` (epoch milliseconds); null where the blocks table has none.
 */
export async function blocksAround(store: Store, network: string, sinceMs: number, untilMs: number): Promise<{ before: number | null; after: number | null }> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.blocksAround(ch, network, sinceMs, untilMs);
  const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  return cachedLookup(store, `blocksAround\0${network}\0${sinceMs}\0${untilMs}`, async () => {
    const [edges] = await store.all<{ before: bigint | null; after: bigint | null }>(
      `SELECT (SELECT max(number) FROM blocks WHERE network = $network AND time < CAST($since AS TIMESTAMP)) AS before,
              (SELECT min(number) FROM blocks WHERE network = $network AND time >= CAST($until AS TIMESTAMP)) AS after`,
      { network, since: ts(sinceMs), until: ts(untilMs) },
    );
    return { before: edges?.before == null ? null : Number(edges.before), after: edges?.after == null ? null : Number(edges.after) };
  });
}

/** Whether the store has never held data nor keys. */
export async function isEmptyStore(store: Store): Promise<boolean> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.isEmptyStore(ch);
  const [r] = await store.all<{ n: bigint }>(`SELECT (SELECT count(*) FROM coverage) + (SELECT count(*) FROM api_keys) AS n`);
  return Number(r?.n ?? 0) === 0;
}

/** Records [lo, hi] as covered, merging with touching intervals. Call inside the transaction that wrote the rows. */
export async function addCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  // Rows are appended at the table's end. If they are not past everything held
  // before, the table's physical order no longer follows the data's order.
  const [prev] = await tx.all<{ max: bigint | null }>(`SELECT max(hi) AS max FROM coverage WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  if (prev?.max != null && lo <= Number(prev.max)) await markUnordered(tx, dataset, scope);
  const touching = await tx.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  const mlo = Math.min(lo, ...touching.map((r) => Number(r.lo)));
  const mhi = Math.max(hi, ...touching.map((r) => Number(r.hi)));
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $lo, $hi)`, { dataset, scope, lo: mlo, hi: mhi });
  await markAdvanced(tx, [dataset], scope);
}

/** Records that the datasets of `scope` gained coverage now, in the transaction that gave it. */
async function markAdvanced(tx: Tx, datasets: readonly string[], scope: string): Promise<void> {
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const list = datasets.map((_, i) => `$d${i}`).join(', ');
  await tx.run(`DELETE FROM coverage_state WHERE scope = $scope AND dataset IN (${list})`, { scope, ...names });
  await tx.run(`INSERT INTO coverage_state SELECT dataset, $scope, now()::TIMESTAMP FROM (SELECT unnest([${list}]) AS dataset)`, { scope, ...names });
}

/** What ingestion of a chain last saw: its confirmation depth and the head. Kept per network (or chain) scope. */
export async function recordChainState(store: Store, scope: string, state: { confirmations: number; head: number | null }): Promise<void> {
  const ch = clickHouseOf(store);
  if (ch) return recordChainStateClickHouse(ch, scope, state);
  await store.transaction(async (tx) => {
    await tx.run(`DELETE FROM chain_state WHERE scope = $scope`, { scope });
    await tx.run(`INSERT INTO chain_state VALUES ($scope, $confirmations, $head, now()::TIMESTAMP)`, { scope, confirmations: state.confirmations, head: state.head });
  });
}

/** One covered interval with the times of its edge blocks (chains) and when its dataset last advanced. */
/** Every covered interval of the given datasets, in (dataset, scope, lo) order. */
export async function coverageRows(store: Store, datasets: readonly string[]): Promise<CoverageRow[]> {
  const ch = clickHouseOf(store);
  if (ch) return clickhouse.coverageRows(ch, datasets);
  if (datasets.length === 0) return [];
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const rows = await store.all<{ dataset: string; scope: string; lo: bigint; hi: bigint; tlo: Date | null; thi: Date | null; advanced: Date | null; conf: number | null }>(
    `SELECT c.dataset, c.scope, c.lo, c.hi,
            (SELECT min(time) FROM blocks b WHERE b.network = c.scope AND b.number BETWEEN c.lo AND c.hi) AS tlo,
            (SELECT max(time) FROM blocks b WHERE b.network = c.scope AND b.number BETWEEN c.lo AND c.hi) AS thi,
            s.advanced_at AS advanced, k.confirmations AS conf
     FROM coverage c
     LEFT JOIN coverage_state s ON s.dataset = c.dataset AND s.scope = c.scope
     LEFT JOIN chain_state k ON k.scope = c.scope
     WHERE c.dataset IN (${datasets.map((_, i) => `$d${i}`).join(', ')})
     ORDER BY c.dataset, c.scope, c.lo`,
    names,
  );
  return rows.map((r) => ({
    dataset: r.dataset,
    scope: r.scope,
    lo: Number(r.lo),
    hi: Number(r.hi),
    timeLo: r.tlo,
    timeHi: r.thi,
    advancedAt: r.advanced,
    confirmations: r.conf === null ? null : Number(r.conf),
  }));
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
  // ClickHouse returns no table in insertion order; its renderer always sorts (by the sorting key, which reads in order anyway).
  if (store.engine === 'clickhouse') return false;
  return cachedLookup(store, `isPhysicallyOrdered\0${dataset}\0${scope}`, async () => {
    const rows = await store.all<{ unordered: boolean }>(`SELECT unordered FROM dataset_order WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
    return !rows.some((r) => r.unordered);
  });
}

/** Removes [lo, hi] from the coverage (a reorg or a re-ingest), splitting intervals. */
export async function removeCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  const hit = await tx.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`, { dataset, scope, lo, hi });
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`, { dataset, scope, lo, hi });
  for (const r of hit) {
    if (Number(r.lo) < lo) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: Number(r.lo), b: lo - 1 });
    if (Number(r.hi) > hi) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: hi + 1, b: Number(r.hi) });
  }
}

/**
 * `addCoverage` for several datasets of one scope at once, in three or four
 * statements whatever their number (EVM ingestion records a dozen datasets
 * per committed batch, and every statement costs milliseconds). Same rules:
 * touching intervals merge, and a range not past everything held before
 * marks the dataset's rows out of order. Dataset names are ours (catalog
 * ids), never user text; they are bound as values.
 */
export async function addCoverageMany(tx: Tx, datasets: readonly string[], scope: string, lo: number, hi: number): Promise<void> {
  if (datasets.length === 0) return;
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const inList = `(${datasets.map((_, i) => `$d${i}`).join(', ')})`;
  const rows = await tx.all<{ dataset: string; lo: bigint; hi: bigint }>(`SELECT dataset, lo, hi FROM coverage WHERE scope = $scope AND dataset IN ${inList}`, { scope, ...names });
  const merged = new Map(datasets.map((d) => [d, { lo, hi, prevMax: null as number | null }]));
  for (const r of rows) {
    const m = merged.get(r.dataset)!;
    const [rlo, rhi] = [Number(r.lo), Number(r.hi)];
    m.prevMax = Math.max(m.prevMax ?? rhi, rhi);
    if (rhi >= lo - 1 && rlo <= hi + 1) {
      m.lo = Math.min(m.lo, rlo);
      m.hi = Math.max(m.hi, rhi);
    }
  }
  const behind = datasets.filter((d) => {
    const m = merged.get(d)!;
    return m.prevMax !== null && lo <= m.prevMax;
  });
  if (behind.length) {
    const b: Record<string, string> = {};
    behind.forEach((d, i) => {
      b[`b${i}`] = d;
    });
    const bList = `(${behind.map((_, i) => `$b${i}`).join(', ')})`;
    await tx.run(`DELETE FROM dataset_order WHERE scope = $scope AND dataset IN ${bList}`, { scope, ...b });
    await tx.run(`INSERT INTO dataset_order SELECT dataset, $scope, true FROM (SELECT unnest([${behind.map((_, i) => `$b${i}`).join(', ')}]) AS dataset)`, { scope, ...b });
  }
  await tx.run(`DELETE FROM coverage WHERE scope = $scope AND dataset IN ${inList} AND hi >= $lo - 1 AND lo <= $hi + 1`, { scope, lo, hi, ...names });
  const values = datasets
    .map((d, i) => {
      const m = merged.get(d)!;
      return `($d${i}, $scope, ${m.lo}, ${m.hi})`;
    })
    .join(', ');
  await tx.run(`INSERT INTO coverage VALUES ${values}`, { scope, ...names });
  await markAdvanced(tx, datasets, scope);
}
