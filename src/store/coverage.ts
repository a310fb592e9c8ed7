/**
 * Coverage: the intervals that ingestion completed, per dataset and scope
 * (network, or token for venues), written in the same transaction as the rows.
 * Also the physical-order flags that appending out of order sets.
 */
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import * as clickhouse from './clickhouse/lookups.ts';
import { recordChainStateClickHouse } from './clickhouse/publish.ts';
import type { CoverageRow, Store } from './types.ts';
import type { Interval } from './intervals.ts';

export { gaps, intersect, union, type Interval } from './intervals.ts';
export type { CoverageRow } from './types.ts';
export { addCoverage, addCoverageMany, removeCoverage } from './duckdb/coverageWrites.ts';
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
