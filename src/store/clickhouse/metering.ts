/**
 * API keys and the usage ledger in ClickHouse, for src/metering. A key is a
 * ReplacingMergeTree entity: creating, revoking or moving it to another plan
 * inserts its whole new state with a higher version, so every API server
 * reading the same ClickHouse sees the change at its next lookup. Charges
 * are appended, one INSERT per group commit (atomic in ClickHouse).
 */
import type { NewCharge } from '../ledger.ts';
import type { KeyChange, StoredKey } from '../types.ts';
import { clickHouseTime, parseClickHouseTime } from './time.ts';
import type { ClickHouseStore } from './types.ts';

interface KeyText {
  id: string;
  key_hash: string;
  prefix: string;
  plan: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

const toKey = (r: KeyText): StoredKey => ({
  id: r.id,
  keyHash: r.key_hash,
  prefix: r.prefix,
  plan: r.plan,
  name: r.name,
  createdAt: parseClickHouseTime(r.created_at)!,
  revokedAt: parseClickHouseTime(r.revoked_at),
});

const KEY_COLUMNS = 'id, key_hash, prefix, plan, name, created_at, revoked_at';
/** Versions grow with the clock, and past the previous version, whichever machine writes. */
const NEXT_VERSION = 'greatest(version + 1, toUInt64(toUnixTimestamp64Micro(now64(6))))';

export async function insertKey(s: ClickHouseStore, k: StoredKey): Promise<void> {
  await s.insert('api_keys', [
    {
      id: k.id,
      key_hash: k.keyHash,
      prefix: k.prefix,
      plan: k.plan,
      name: k.name,
      created_at: k.createdAt,
      revoked_at: null,
      version: String(BigInt(k.createdAt.getTime()) * 1000n),
    },
  ]);
}

export async function activeKeyByHash(s: ClickHouseStore, hash: string): Promise<StoredKey | null> {
  const rows = await s.query<KeyText>(`SELECT ${KEY_COLUMNS} FROM ${s.table('api_keys')} FINAL WHERE key_hash = {hash:String} AND revoked_at IS NULL`, { hash });
  return rows[0] ? toKey(rows[0]) : null;
}

export async function allKeys(s: ClickHouseStore): Promise<StoredKey[]> {
  const rows = await s.query<KeyText>(`SELECT ${KEY_COLUMNS} FROM ${s.table('api_keys')} FINAL ORDER BY created_at, id`);
  return rows.map(toKey);
}

/** Keys matching an id or visible prefix (active ones only when `active`). */
export async function countKeys(s: ClickHouseStore, idOrPrefix: string, active: boolean): Promise<number> {
  const [r] = await s.query<{ n: number }>(`SELECT count() AS n FROM ${s.table('api_keys')} FINAL WHERE (id = {v:String} OR prefix = {v:String})${active ? ' AND revoked_at IS NULL' : ''}`, {
    v: idOrPrefix,
  });
  return Number(r?.n ?? 0);
}

/** Writes the next state of the key matching `idOrPrefix`: revoked now, or on another plan. */
export async function updateKey(s: ClickHouseStore, idOrPrefix: string, change: KeyChange): Promise<void> {
  const api = s.table('api_keys');
  const revoke = 'revoke' in change;
  await s.command(
    `INSERT INTO ${api} (id, key_hash, prefix, plan, name, created_at, revoked_at, version)
     SELECT id, key_hash, prefix, ${revoke ? 'plan' : '{plan:String}'}, name, created_at,
            ${revoke ? `now64(3, 'UTC')` : 'revoked_at'}, ${NEXT_VERSION}
     FROM ${api} FINAL WHERE (id = {v:String} OR prefix = {v:String})${revoke ? ' AND revoked_at IS NULL' : ''}`,
    revoke ? { v: idOrPrefix } : { v: idOrPrefix, plan: change.plan },
  );
}

export async function usedInPeriod(s: ClickHouseStore, keyId: string, period: string): Promise<number> {
  const [r] = await s.query<{ used: number }>(`SELECT sum(cost) AS used FROM ${s.table('usage_charges')} WHERE key_id = {keyId:String} AND period = {period:String}`, { keyId, period });
  return Number(r?.used ?? 0);
}

/** The ledger's group of charges as one INSERT, charged_at stamped when it is written. */
export async function appendCharges(s: ClickHouseStore, charges: readonly NewCharge[]): Promise<void> {
  const now = Date.now();
  await s.insert(
    'usage_charges',
    charges.map((c) => ({
      key_id: c.keyId,
      period: c.period,
      request_id: c.requestId,
      cost: c.cost,
      admitted_at: clickHouseTime(c.admittedAt),
      charged_at: clickHouseTime(now),
      endpoint: c.endpoint,
    })),
  );
}

export async function usageByKeyAndPeriod(
  s: ClickHouseStore,
  filter: { keyId?: string | undefined; period?: string | undefined },
): Promise<{ keyId: string; period: string; requests: number; blocks: number }[]> {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (filter.keyId !== undefined) {
    where.push('key_id = {keyId:String}');
    params.keyId = filter.keyId;
  }
  if (filter.period !== undefined) {
    where.push('period = {period:String}');
    params.period = filter.period;
  }
  const rows = await s.query<{ key_id: string; period: string; requests: number; blocks: number }>(
    `SELECT key_id, period, count() AS requests, sum(cost) AS blocks FROM ${s.table('usage_charges')}
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY key_id, period ORDER BY period, key_id`,
    params,
  );
  return rows.map((r) => ({ keyId: r.key_id, period: r.period, requests: Number(r.requests), blocks: Number(r.blocks) }));
}

export async function recentCharges(
  s: ClickHouseStore,
  keyId: string,
  period: string,
  limit: number,
): Promise<{ requestId: string; cost: number; endpoint: string | null; admittedAt: number; chargedAt: number }[]> {
  const rows = await s.query<{ request_id: string; cost: number; endpoint: string | null; admitted_ms: number; charged_ms: number }>(
    `SELECT request_id, cost, endpoint, toUnixTimestamp64Milli(admitted_at) AS admitted_ms, toUnixTimestamp64Milli(charged_at) AS charged_ms
     FROM ${s.table('usage_charges')} WHERE key_id = {keyId:String} AND period = {period:String}
     ORDER BY charged_at DESC, admitted_at DESC LIMIT {limit:UInt32}`,
    { keyId, period, limit },
  );
  return rows.map((r) => ({ requestId: r.request_id, cost: Number(r.cost), endpoint: r.endpoint, admittedAt: Number(r.admitted_ms), chargedAt: Number(r.charged_ms) }));
}

/** Whether the ledger holds a charge under this request id. */
export async function hasCharge(s: ClickHouseStore, requestId: string): Promise<boolean> {
  const rows = await s.query<{ one: number }>(`SELECT 1 AS one FROM ${s.table('usage_charges')} WHERE request_id = {requestId:String} LIMIT 1`, { requestId });
  return rows.length > 0;
}
