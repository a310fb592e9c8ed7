/** Reads of the usage ledger's `usage_charges` table in DuckDB. */
import type { ChargeLedger } from '../ledger.ts';
import type { UsageOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

/** `ledger` is the store's (absent on read-only stores and views): its journal is applied before totals and listings. */
export function duckDbUsage(db: Pick<DuckDbStatements, 'all'>, ledger: () => ChargeLedger | undefined): UsageOperations {
  return {
    async usedInPeriod(keyId, period) {
      const rows = await db.all<{ used: bigint | number | null }>(`SELECT sum(cost) AS used FROM usage_charges WHERE key_id = $keyId AND period = $period`, { keyId, period });
      return Number(rows[0]?.used ?? 0);
    },
    async totals(filter) {
      await ledger()?.settle();
      const where: string[] = [];
      const params: Record<string, string> = {};
      if (filter.keyId !== undefined) {
        where.push('key_id = $keyId');
        params.keyId = filter.keyId;
      }
      if (filter.period !== undefined) {
        where.push('period = $period');
        params.period = filter.period;
      }
      const rows = await db.all<{ key_id: string; period: string; requests: bigint; blocks: bigint | null }>(
        `SELECT key_id, period, count(*) AS requests, sum(cost) AS blocks FROM usage_charges
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY key_id, period ORDER BY period, key_id`,
        params,
      );
      return rows.map((r) => ({ keyId: r.key_id, period: r.period, requests: Number(r.requests), blocks: Number(r.blocks ?? 0) }));
    },
    async recent(keyId, period, limit) {
      await ledger()?.settle();
      const rows = await db.all<{ request_id: string; cost: bigint | number; endpoint: string | null; admitted_ms: bigint | number; charged_ms: bigint | number }>(
        `SELECT request_id, cost, endpoint, epoch_ms(admitted_at) AS admitted_ms, epoch_ms(charged_at) AS charged_ms FROM usage_charges
         WHERE key_id = $keyId AND period = $period ORDER BY charged_at DESC, admitted_at DESC LIMIT $limit`,
        { keyId, period, limit },
      );
      return rows.map((r) => ({ requestId: r.request_id, cost: Number(r.cost), endpoint: r.endpoint, admittedAt: Number(r.admitted_ms), chargedAt: Number(r.charged_ms) }));
    },
    async charged(requestId) {
      await ledger()?.settle();
      const rows = await db.all<{ one: number }>(`SELECT 1 AS one FROM usage_charges WHERE request_id = $requestId LIMIT 1`, { requestId });
      return rows.length > 0;
    },
  };
}
