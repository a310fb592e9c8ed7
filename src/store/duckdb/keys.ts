/** API keys in DuckDB: one row per key, changed in place. */
import type { KeyOperations, StoredKey } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

interface KeyRow {
  id: string;
  key_hash: string;
  prefix: string;
  plan: string;
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const toKey = (r: KeyRow): StoredKey => ({ id: r.id, keyHash: r.key_hash, prefix: r.prefix, plan: r.plan, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at });

/** The operations over a store's statements (a snapshot's `run` refuses, so its keys can be read only). */
export function duckDbKeys(db: Pick<DuckDbStatements, 'all' | 'run'>): KeyOperations {
  return {
    async insert(k) {
      await db.run(`INSERT INTO api_keys VALUES ($id, $hash, $prefix, $plan, $name, CAST($created AS TIMESTAMP), NULL)`, {
        id: k.id,
        hash: k.keyHash,
        prefix: k.prefix,
        plan: k.plan,
        name: k.name,
        created: k.createdAt.toISOString().replace('T', ' ').replace('Z', ''),
      });
    },
    async activeByHash(hash) {
      const rows = await db.all<KeyRow>(`SELECT * FROM api_keys WHERE key_hash = $hash AND revoked_at IS NULL`, { hash });
      return rows[0] ? toKey(rows[0]) : null;
    },
    async all() {
      const rows = await db.all<KeyRow>(`SELECT * FROM api_keys ORDER BY created_at, id`);
      return rows.map(toKey);
    },
    async count(idOrPrefix, active) {
      const rows = await db.all<{ n: bigint }>(`SELECT count(*) AS n FROM api_keys WHERE (id = $v OR prefix = $v)${active ? ' AND revoked_at IS NULL' : ''}`, { v: idOrPrefix });
      return Number(rows[0]?.n ?? 0);
    },
    async update(idOrPrefix, change) {
      if ('revoke' in change) await db.run(`UPDATE api_keys SET revoked_at = now()::TIMESTAMP WHERE (id = $v OR prefix = $v) AND revoked_at IS NULL`, { v: idOrPrefix });
      else await db.run(`UPDATE api_keys SET plan = $plan WHERE id = $v OR prefix = $v`, { v: idOrPrefix, plan: change.plan });
    },
  };
}
