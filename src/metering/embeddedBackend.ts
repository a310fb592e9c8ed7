/**
 * The embedded backend: rate-limit windows in memory, charges in the store's
 * usage ledger (`store.ledger` writes, `store.usage` reads). One server process owns the store (DuckDB
 * allows one writer), so in-memory counters are authoritative once loaded.
 *
 * Atomicity: a key-month balance is loaded from the store once, under a
 * per-balance lock (the memoised load promise); after that, check-and-hold is
 * synchronous JavaScript with no await in between, which Node runs as one
 * step. Durability: a commit resolves only once the store's ledger
 * (src/store/ledger.ts) holds the charge durably: on DuckDB in its journal,
 * synced to disk, reaching `usage_charges` in the background; on ClickHouse
 * inserted, commits that arrive while an insert runs grouped into the next.
 *
 * Once per id: a `replayable` charge (an export partition's) is looked up in
 * the ledger before it is recorded, and not recorded when it is there. The
 * ledger holds every charge made durable, by this process or, once the store
 * has reopened and applied its journal, by one that died; commits of the same
 * id in this process run one after another, so the second sees the first.
 */
import type { Store } from '../store/types.ts';
import type { NewCharge } from '../store/ledger.ts';
import type { AdmitInput, AdmitResult, CommitAhead, MeterBackend, Reservation, ReserveResult } from './backend.ts';

interface MutableBalance {
  used: number;
  reserved: number;
}

export function createEmbeddedBackend(store: Store): MeterBackend {
  const windows = new Map<string, { window: number; count: number }>();
  const balances = new Map<string, Promise<MutableBalance>>();
  /** Commits of replayable ids in progress, by id: the next one of an id waits for the one before. */
  const replays = new Map<string, Promise<boolean>>();

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
      b = store.usage.usedInPeriod(keyId, period).then((used) => ({ used, reserved: 0 }));
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
      const ledger = store.ledger;
      if (!ledger) throw new Error('this store has no usage ledger (a read-only store cannot charge)');
      if (!r.replayable) {
        await ledger.record([chargeOf(r)]);
        endHold(b, r, true);
        return;
      }
      const before = replays.get(r.id) ?? Promise.resolve(false);
      const charged = before
        .catch(() => false)
        .then(async () => {
          if (await store.usage.charged(r.id)) return false;
          await ledger.record([chargeOf(r)]);
          return true;
        });
      replays.set(r.id, charged);
      try {
        endHold(b, r, await charged);
      } finally {
        if (replays.get(r.id) === charged) replays.delete(r.id);
      }
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

    usage: (filter = {}) => store.usage.totals(filter),

    recentCharges: (keyId: string, period: string, limit: number) => store.usage.recent(keyId, period, limit),

    async close(): Promise<void> {
      await store.ledger?.settle();
    },
  };
}
