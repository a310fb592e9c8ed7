/**
 * API keys: `cq_` + 32 base62 characters (docs/api.md, "Authentication"). Only a SHA-256
 * hash is stored; a key is shown once, when created. Keys carry 190 bits of
 * randomness, so a fast hash is enough: there is nothing to brute-force.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/types.ts';

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
  await store.keys.insert({ id, keyHash: hashKey(key), prefix, plan: opts.plan, name: opts.name ?? null, createdAt, revokedAt: null });
  return { key, record: { id, prefix, plan: opts.plan, name: opts.name ?? null, createdAt, revokedAt: null } };
}

/** The active key whose hash matches, compared in constant time. */
export async function findKey(store: Store, key: string): Promise<ApiKeyRecord | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const hash = hashKey(key);
  const k = await store.keys.activeByHash(hash);
  if (!k || !timingSafeEqual(Buffer.from(k.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  const { keyHash: _, ...record } = k;
  return record;
}

export async function listKeys(store: Store): Promise<ApiKeyRecord[]> {
  return (await store.keys.all()).map(({ keyHash: _, ...record }) => record);
}

/** Revokes by id or by the key's visible prefix; returns how many keys matched. */
export async function revokeKey(store: Store, idOrPrefix: string): Promise<number> {
  const n = await store.keys.count(idOrPrefix, true);
  if (n === 1) await store.keys.update(idOrPrefix, { revoke: true });
  return n;
}

/** Moves a key to another plan, by id or visible prefix; returns how many keys matched (changed only when exactly one). */
export async function setKeyPlan(store: Store, idOrPrefix: string, plan: string): Promise<number> {
  const n = await store.keys.count(idOrPrefix, false);
  if (n === 1) await store.keys.update(idOrPrefix, { plan });
  return n;
}

/** Keys whose id or visible prefix is `idOrPrefix` (all keys when undefined), revoked ones included. */
export async function matchKeys(store: Store, idOrPrefix?: string): Promise<ApiKeyRecord[]> {
  const all = await listKeys(store);
  return idOrPrefix === undefined ? all : all.filter((k) => k.id === idOrPrefix || k.prefix === idOrPrefix);
}
