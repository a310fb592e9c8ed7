/** Coverage reads in DuckDB SQL (the contract: CoverageOperations), through the store's lookup cache. */
import type { CoverageOperations, CoverageRow } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

/** `lookup` is the store's (or the snapshot's) cache of planners' lookups (../lookupCache.ts). */
export function duckDbCoverage(db: Pick<DuckDbStatements, 'all' | 'transaction'>, lookup: <T>(key: string, compute: () => Promise<T>) => Promise<T>): CoverageOperations {
  return {
    intervals: (dataset, scope) =>
      lookup(`coveredIntervals\0${dataset}\0${scope}`, async () => {
        const rows = await db.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope ORDER BY lo`, { dataset, scope });
        return rows.map((r) => ({ lo: Number(r.lo), hi: Number(r.hi) }));
      }),
    scopes: (dataset) =>
      lookup(`coveredScopes\0${dataset}`, async () => {
        const rows = await db.all<{ scope: string }>(`SELECT DISTINCT scope FROM coverage WHERE dataset = $dataset ORDER BY scope`, { dataset });
        return rows.map((r) => r.scope);
      }),
    blocksAround(network, sinceMs, untilMs) {
      const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
      return lookup(`blocksAround\0${network}\0${sinceMs}\0${untilMs}`, async () => {
        const [edges] = await db.all<{ before: bigint | null; after: bigint | null }>(
          `SELECT (SELECT max(number) FROM blocks WHERE network = $network AND time < CAST($since AS TIMESTAMP)) AS before,
              (SELECT min(number) FROM blocks WHERE network = $network AND time >= CAST($until AS TIMESTAMP)) AS after`,
          { network, since: ts(sinceMs), until: ts(untilMs) },
        );
        return { before: edges?.before == null ? null : Number(edges.before), after: edges?.after == null ? null : Number(edges.after) };
      });
    },
    async isEmpty() {
      const [r] = await db.all<{ n: bigint }>(`SELECT (SELECT count(*) FROM coverage) + (SELECT count(*) FROM api_keys) AS n`);
      return Number(r?.n ?? 0) === 0;
    },
    async recordChainState(scope, state) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM chain_state WHERE scope = $scope`, { scope });
        await tx.run(`INSERT INTO chain_state VALUES ($scope, $confirmations, $head, now()::TIMESTAMP)`, { scope, confirmations: state.confirmations, head: state.head });
      });
    },
    rows: (datasets) => coverageRows(db, datasets),
    isPhysicallyOrdered: (dataset, scope) =>
      lookup(`isPhysicallyOrdered\0${dataset}\0${scope}`, async () => {
        const rows = await db.all<{ unordered: boolean }>(`SELECT unordered FROM dataset_order WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
        return !rows.some((r) => r.unordered);
      }),
  };
}

async function coverageRows(db: Pick<DuckDbStatements, 'all'>, datasets: readonly string[]): Promise<CoverageRow[]> {
  if (datasets.length === 0) return [];
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const rows = await db.all<{ dataset: string; scope: string; lo: bigint; hi: bigint; tlo: Date | null; thi: Date | null; advanced: Date | null; conf: number | null }>(
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
