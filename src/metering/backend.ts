/**
 * Where rate-limit windows and quota counters live. The embedded backend
 * keeps them in process and the charges in the DuckDB store; the Redis
 * backend keeps both in Redis, so that several server processes enforce one
 * limit. Both give the same guarantees: a reservation is checked and taken in
 * one atomic step, and a charge is durable before `commit` resolves.
 */

/** A budget hold for one request: taken before streaming, committed or released after. */
export interface Reservation {
  /** Unique per request; also the request id shown to the client and stored with the charge. */
  readonly id: string;
  readonly keyId: string;
  /** `YYYY-MM` of the month the request was admitted in: it is charged to that month. */
  readonly period: string;
  readonly cost: number;
  /** Epoch ms when the reservation was taken. */
  readonly at: number;
  /** The route path charged (no query string), shown in the key's recent charges. */
  readonly endpoint?: string;
  /**
   * The id may be committed again after a restart: an export partition's
   * (`<export id>-<index>`), whose charge can be durable while the partition
   * is not yet recorded when the server dies, and which is charged again when
   * the export resumes. The backend remembers such an id, and a second commit
   * of it charges nothing. A request's id is new for every request, so its
   * charge needs no such record (and its commit no lookup).
   */
  readonly replayable?: boolean;
}

export interface Balance {
  /** Blocks charged this period (committed). */
  readonly used: number;
  /** Blocks held by requests still streaming. */
  readonly reserved: number;
}

export interface AdmitInput {
  readonly keyId: string;
  readonly window: number;
  readonly period: string;
  /** Epoch ms of the request, from the meter's clock. */
  readonly now: number;
  /** False for keys without a per-minute limit: nothing to count. */
  readonly countRequest: boolean;
}

export interface AdmitResult extends Balance {
  /** Requests in this window including this one (0 when not counted). */
  readonly count: number;
}

export interface ReserveResult extends Balance {
  readonly ok: boolean;
}

export interface UsageRow {
  readonly keyId: string;
  readonly period: string;
  readonly requests: number;
  readonly blocks: number;
}

/** One charged request, as the key's owner sees it in GET /v1/usage. */
export interface ChargeRecord {
  readonly requestId: string;
  readonly cost: number;
  /** The route path, or null for charges recorded before routes were kept. */
  readonly endpoint: string | null;
  /** Epoch ms the request was admitted. */
  readonly admittedAt: number;
  /** Epoch ms the charge was recorded. */
  readonly chargedAt: number;
}

/** How many recent charges per key and month the Redis backend keeps (the embedded ledger keeps all). */
export const RECENT_CHARGES_KEPT = 50;

/**
 * A reservation's charge being written ahead, pending, while its request runs
 * (src/store/ledger.ts, ChargeAhead): `confirm` makes it count and turns the
 * hold into the charge, `drop` gives the hold back.
 */
export interface CommitAhead {
  /** Resolves once the pending charge survives a crash; rejects when it could not be written. */
  readonly durable: Promise<void>;
  /** Charges the held cost: resolves once the confirmation survives a crash; rejects, charging nothing, when it could not be written. */
  confirm(): Promise<void>;
  /** Drops the hold without charging. */
  drop(): Promise<void>;
}

export interface MeterBackend {
  readonly kind: 'embedded' | 'redis';
  /** Counts the request in its minute window and reads the period's balance. */
  admit(input: AdmitInput): Promise<AdmitResult>;
  /** Atomically: if used + reserved + cost <= budget (null: no budget), hold cost. */
  reserve(r: Reservation, budget: number | null): Promise<ReserveResult>;
  /**
   * Records the charge durably and drops the hold. Resolves only once the
   * charge survives a crash. A `replayable` id already committed, by this
   * process or before a restart, is not charged again: its commit only drops
   * the hold.
   */
  commit(r: Reservation): Promise<void>;
  /** Drops the hold without charging. */
  release(r: Reservation): Promise<void>;
  /** Starts writing the charge now, ahead of the response's end, when the backend's ledger can (the embedded one on a DuckDB store); null otherwise. */
  commitAhead?(r: Reservation): CommitAhead | null;
  /** Charged usage per key and period, optionally narrowed. */
  usage(filter?: { keyId?: string | undefined; period?: string | undefined }): Promise<UsageRow[]>;
  /** The key's latest charges of a period, newest first, at most `limit` (and at most RECENT_CHARGES_KEPT on Redis). */
  recentCharges(keyId: string, period: string, limit: number): Promise<ChargeRecord[]>;
  close(): Promise<void>;
}
