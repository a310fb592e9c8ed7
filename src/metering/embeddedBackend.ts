/**
 * The embedded backend: rate-limit windows in memory, charges in the DuckDB
 * store's `usage_charges` table. One server process owns the store (DuckDB
 * allows one writer), so in-memory counters are authoritative once loaded.
 *
 * Atomicity: a key-month balance is loaded from the store once, under a
 * per-balance lock (the memoised load promise); after that, check-and-hold is
 * synchronous JavaScript with no await in between, which Node runs as one
 * step. Durability: a commit resolves only once the store's ledger
 * (src/store/ledger.ts) holds the charge durably: on DuckDB in its journal,
 * synced to disk, reaching `usage_charges` in the background; on ClickHouse
 * inserted, commits that arrive while an insert runs grouped into the next.
 */
import { clickHouseOf } from '../store/clickhouse/createClickHouseStore.ts';
import * as clickhouse from '../store/clickhouse/metering.ts';
import type { Store } from '../store/types.ts';
import type { NewCharge } from '../store/ledger.ts';
import type { AdmitInput, AdmitResult, ChargeRecord, CommitAhead, MeterBackend, Reservation, ReserveResult, UsageRow } from './backend.ts';

interface MutableBalance {
  used: number;
  reserved: number;
}

export function createEmbeddedBackend(store: Store): MeterBackend {
  const windows = new Map<string, { window: number; count: number }>();
  const balances = new Map<string, Promise<MutableBalance>>();

  const balanceKey = (keyId: string, period: string) => `${keyId}\u0000${period}`;
  /** Ends a hold: its cost leaves `reserved`, and joins `used` when it was charged. */
  const endHold = (b: MutableBalance, r: Reservation, charged: boolean): void => {
    b.reserved -= r.cost;
    if (charged) b.used += r.cost;
  };
  const chargeOf = (r: Reservation): NewCharge => ({ keyId: r.keyId, period: r.period, requestId: r.id, cost: r.cost, admittedAt: r.at, endpoint: r.endpoint ?? null });

  function balance(keyId: string, period: string): Promise<MutableBalance> {
    const k = balanceKey(keyId, period);
    let b = balances.get(k);
    if (!b) {
      const ch = clickHouseOf(store);
      b = ch
        ? clickhouse.usedInPeriod(ch, keyId, period).then((used) => ({ used, reserved: 0 }))
        : store
            .all<{ used: bigint | number | null }>(`SELECT sum(cost) AS used FROM usage_charges WHERE key_id = $keyId AND period = $period`, { keyId, period })
            .then((rows) => ({ used: Number(rows[0]?.used ?? 0), reserved: 0 }));
      // A failed load must not poison the key: the next request tries again.
      b.catch(() => balances.delete(k));
      balances.set(k, b);
    }
    return b;
  }

  return {
    kind: 'embedded',

    async admit(input: AdmitInput): Promise<AdmitResult> {
      let count = 0;
      if (input.countRequest) {
        const w = windows.get(input.keyId);
        if (w && w.window === input.window) count = ++w.count;
        else {
          windows.set(input.keyId, { window: input.window, count: 1 });
          count = 1;
        }
      }
      const b = await balance(input.keyId, input.period);
      return { count, used: b.used, reserved: b.reserved };
    },

    async reserve(r: Reservation, budget: number | null): Promise<ReserveResult> {
      const b = await balance(r.keyId, r.period);
      // No await between the check and the hold: this is the atomic step.
      if (budget !== null && b.used + b.reserved + r.cost > budget) return { ok: false, used: b.used, reserved: b.reserved };
      b.reserved += r.cost;
      return { ok: true, used: b.used, reserved: b.reserved };
    },

    async commit(r: Reservation): Promise<void> {
      const b = await balance(r.keyId, r.period);
      if (!store.ledger) throw new Error('this store has no usage ledger (a read-only store cannot charge)');
      await store.ledger.record([chargeOf(r)]);
      endHold(b, r, true);
    },

    commitAhead(r: Reservation): CommitAhead | null {
      const ahead = store.ledger?.recordAhead?.(chargeOf(r));
      if (!ahead) return null;
      return {
        durable: ahead.durable,
        async confirm() {
          const b = await balance(r.keyId, r.period);
          await ahead.confirm();
          endHold(b, r, true);
        },
        async drop() {
          await ahead.drop();
          endHold(await balance(r.keyId, r.period), r, false);
        },
      };
    },

    async release(r: Reservation): Promise<void> {
      endHold(await balance(r.keyId, r.period), r, false);
    },

    async usage(filter = {}): Promise<UsageRow[]> {
      const ch = clickHouseOf(store);
      if (ch) return clickhouse.usageByKeyAndPeriod(ch, filter);
      await store.ledger?.settle();
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
      const rows = await store.all<{ key_id: string; period: string; requests: bigint; blocks: bigint | null }>(
        `SELECT key_id, period, count(*) AS requests, sum(cost) AS blocks FROM usage_charges
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY key_id, period ORDER BY period, key_id`,
        params,
      );
      return rows.map((r) => ({ keyId: r.key_id, period: r.period, requests: Number(r.requests), blocks: Number(r.blocks ?? 0) }));
    },

    async recentCharges(keyId: string, period: string, limit: number): Promise<ChargeRecord[]> {
      const ch = clickHouseOf(store);
      if (ch) return clickhouse.recentCharges(ch, keyId, period, limit);
      await store.ledger?.settle();
      const rows = await store.all<{ request_id: string; cost: bigint | number; endpoint: string | null; admitted_ms: bigint | number; charged_ms: bigint | number }>(
        `SELECT request_id, cost, endpoint, epoch_ms(admitted_at) AS admitted_ms, epoch_ms(charged_at) AS charged_ms FROM usage_charges
         WHERE key_id = $keyId AND period = $period ORDER BY charged_at DESC, admitted_at DESC LIMIT $limit`,
        { keyId, period, limit },
      );
      return rows.map((r) => ({ requestId: r.request_id, cost: Number(r.cost), endpoint: r.endpoint, admittedAt: Number(r.admitted_ms), chargedAt: Number(r.charged_ms) }));
    },

    async close(): Promise<void> {
      await store.ledger?.settle();
    },
  };
}
