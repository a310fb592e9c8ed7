/**
 * API keys: `cq_` + 32 base62 characters (docs/api.md, "Authentication"). Only a SHA-256
 * hash is stored; a key is shown once, when created. Keys carry 190 bits of
 * randomness, so a fast hash is enough: there is nothing to brute-force.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { clickHouseOf } from '../store/clickhouse/createClickHouseStore.ts';
import * as clickhouse from '../store/clickhouse/metering.ts';
import type { Store } from '../store/createStore.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PATTERN = /^cq_[0-9A-Za-z]{32}$/;

export interface ApiKeyRecord {
  readonly id: string;
  readonly prefix: string;
  readonly plan: string;
  readonly name: string | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export function generateKey(): string {
  let out = 'cq_';
  while (out.length < 35) {
    for (const b of randomBytes(48)) {
      // Rejection sampling keeps every character equally likely.
      if (b < 248 && out.length < 35) out += BASE62[b % 62];
    }
  }
  return out;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export async function createKey(store: Store, opts: { plan: string; name?: string | undefined }): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateKey();
  const id = randomUUID();
  const prefix = key.slice(0, 7);
  const createdAt = new Date();
  const ch = clickHouseOf(store);
  if (ch) {
    await clickhouse.insertKey(ch, { id, keyHash: hashKey(key), prefix, plan: opts.plan, name: opts.name ?? null, createdAt, revokedAt: null });
    return { key, record: { id, prefix, plan: opts.plan, name: opts.name ?? null, createdAt, revokedAt: null } };
  }
  await store.run(`INSERT INTO api_keys VALUES ($id, $hash, $prefix, $plan, $name, CAST($created AS TIMESTAMP), NULL)`, {
    id,
    hash: hashKey(key),
    prefix,
    plan: opts.plan,
    name: opts.name ?? null,
    created: createdAt.toISOString().replace('T', ' ').replace('Z', ''),
  });
  return { key, record: { id, prefix, plan: opts.plan, name: opts.name ?? null, createdAt, revokedAt: null } };
}

interface KeyRow {
  id: string;
  key_hash: string;
  prefix: string;
  plan: string;
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const toRecord = (r: KeyRow): ApiKeyRecord => ({ id: r.id, prefix: r.prefix, plan: r.plan, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at });

/** The active key whose hash matches, compared in constant time. */
export async function findKey(store: Store, key: string): Promise<ApiKeyRecord | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const hash = hashKey(key);
  const ch = clickHouseOf(store);
  if (ch) {
    const k = await clickhouse.activeKeyByHash(ch, hash);
    if (!k || !timingSafeEqual(Buffer.from(k.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    const { keyHash: _, ...record } = k;
    return record;
  }
  const rows = await store.all<KeyRow>(`SELECT * FROM api_keys WHERE key_hash = $hash AND revoked_at IS NULL`, { hash });
  const row = rows[0];
  if (!row) return null;
  return timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) ? toRecord(row) : null;
}

export async function listKeys(store: Store): Promise<ApiKeyRecord[]> {
  const ch = clickHouseOf(store);
  if (ch) return (await clickhouse.allKeys(ch)).map(({ keyHash: _, ...record }) => record);
  const rows = await store.all<KeyRow>(`SELECT * FROM api_keys ORDER BY created_at, id`);
  return rows.map(toRecord);
}

/** Revokes by id or by the key's visible prefix; returns how many keys matched. */
export async function revokeKey(store: Store, idOrPrefix: string): Promise<number> {
  const ch = clickHouseOf(store);
  if (ch) {
    const n = await clickhouse.countKeys(ch, idOrPrefix, true);
    if (n === 1) await clickhouse.updateKey(ch, idOrPrefix, { revoke: true });
    return n;
  }
  const rows = await store.all<{ n: bigint }>(`SELECT count(*) AS n FROM api_keys WHERE (id = $v OR prefix = $v) AND revoked_at IS NULL`, { v: idOrPrefix });
  const n = Number(rows[0]?.n ?? 0);
  if (n === 1) await store.run(`UPDATE api_keys SET revoked_at = now()::TIMESTAMP WHERE (id = $v OR prefix = $v) AND revoked_at IS NULL`, { v: idOrPrefix });
  return n;
}

/** Moves a key to another plan, by id or visible prefix; returns how many keys matched (changed only when exactly one). */
export async function setKeyPlan(store: Store, idOrPrefix: string, plan: string): Promise<number> {
  const ch = clickHouseOf(store);
  if (ch) {
    const n = await clickhouse.countKeys(ch, idOrPrefix, false);
    if (n === 1) await clickhouse.updateKey(ch, idOrPrefix, { plan });
    return n;
  }
  const rows = await store.all<{ n: bigint }>(`SELECT count(*) AS n FROM api_keys WHERE id = $v OR prefix = $v`, { v: idOrPrefix });
  const n = Number(rows[0]?.n ?? 0);
  if (n === 1) await store.run(`UPDATE api_keys SET plan = $plan WHERE id = $v OR prefix = $v`, { v: idOrPrefix, plan });
  return n;
}

/** Keys whose id or visible prefix is `idOrPrefix` (all keys when undefined), revoked ones included. */
export async function matchKeys(store: Store, idOrPrefix?: string): Promise<ApiKeyRecord[]> {
  const all = await listKeys(store);
  return idOrPrefix === undefined ? all : all.filter((k) => k.id === idOrPrefix || k.prefix === idOrPrefix);
}
