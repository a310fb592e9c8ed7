/**
 * A store's usage ledger: where a charge is made durable before the last
 * bytes of its response are written (docs/metering.md, "When you are
 * charged"). Each engine gives its own: DuckDB a journal beside the store
 * (src/store/journalLedger.ts), ClickHouse a grouped INSERT.
 */

/** One charged request, as `usage_charges` stores it. */
export interface ChargeEntry {
  readonly keyId: string;
  readonly period: string;
  readonly requestId: string;
  readonly cost: number;
  /** Epoch ms the request was admitted. */
  readonly admittedAt: number;
  /** Epoch ms the charge was made durable. */
  readonly chargedAt: number;
  readonly endpoint: string | null;
}

/** A charge as the meter records it; the ledger stamps when it became durable. */
export type NewCharge = Omit<ChargeEntry, 'chargedAt'>;

/**
 * A charge written ahead, while its request still runs, so that most of its
 * durable write is not on the response's path (docs/metering.md, "Charges
 * written ahead"). It is pending: it counts, in `usage_charges` and after a
 * crash, only once confirmed, which its request does just before the body's
 * last bytes are handed to the socket. A crash before that leaves it uncharged.
 */
export interface ChargeAhead {
  /** Resolves once the pending line survives a crash; rejects when it could not be written (then nothing is charged). */
  readonly durable: Promise<void>;
  /** The body is about to be delivered: resolves once its confirmation survives a crash, and the charge stands; rejects (nothing charged) when it could not be written. */
  confirm(): Promise<void>;
  /** The request failed or was left: the pending charge is forgotten, never charged. */
  drop(): Promise<void>;
}

export interface ChargeLedger {
  /** Resolves once the charges survive a crash. */
  record(charges: readonly NewCharge[]): Promise<void>;
  /** Starts writing one charge ahead of its response's end; a ledger that cannot has no such method. */
  recordAhead?(charge: NewCharge): ChargeAhead;
  /** Resolves once every charge recorded so far is in `usage_charges` (before reading the table). */
  settle(): Promise<void>;
  /** Settles, then stops. */
  close(): Promise<void>;
}

/**
 * Charges written straight to the table by `write`, which makes them durable
 * when it resolves. Group commit: charges recorded while a write runs share
 * the next one.
 */
export function createGroupedLedger(write: (charges: readonly ChargeEntry[]) => Promise<void>): ChargeLedger {
  let pending: { charges: readonly ChargeEntry[]; resolve(): void; reject(e: unknown): void }[] = [];
  let writing: Promise<void> | null = null;
  const drain = async () => {
    while (pending.length) {
      const batch = pending;
      pending = [];
      try {
        await write(batch.flatMap((p) => p.charges));
        for (const p of batch) p.resolve();
      } catch (e) {
        for (const p of batch) p.reject(e);
      }
    }
  };
  const start = () => {
    writing ??= drain().finally(() => {
      writing = null;
    });
  };
  const settle = async () => {
    await writing;
  };
  return {
    record(charges) {
      const chargedAt = Date.now();
      return new Promise<void>((resolve, reject) => {
        pending.push({ charges: charges.map((c) => ({ ...c, chargedAt })), resolve, reject });
        start();
      });
    },
    settle,
    // Nothing is held open: closing is settling.
    close: settle,
  };
}
