/** Label namespaces in DuckDB: a namespace's labels and its entry change in one transaction. */
import type { LabelNamespaceOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

/** The operations over a store's statements (a snapshot's `transaction` refuses, so its namespaces can be read only). */
export function duckDbLabelNamespaces(db: Pick<DuckDbStatements, 'all' | 'transaction'>): LabelNamespaceOperations {
  return {
    put: (keyId, namespace, rows, maxNamespaces) =>
      db.transaction(async (tx) => {
        const owned = await tx.all<{ namespace: string }>(`SELECT namespace FROM label_namespaces WHERE key_id = $keyId`, { keyId });
        const created = !owned.some((o) => o.namespace === namespace);
        if (created && owned.length >= maxNamespaces) return null;
        await tx.run(`DELETE FROM user_labels WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
        await tx.run(`DELETE FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
        const now = new Date();
        await tx.append(
          'user_labels',
          rows.map((r, i) => [keyId, namespace, i + 1, r[0], r[1], r[2], r[3]]),
        );
        await tx.append('label_namespaces', [[keyId, namespace, rows.length, now]]);
        return { created, info: { namespace, rows: rows.length, updated_at: now.toISOString() } };
      }),
    async list(keyId) {
      const rows = await db.all<{ namespace: string; rows: number; updated_at: string }>(
        `SELECT namespace, rows, strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS updated_at FROM label_namespaces WHERE key_id = $keyId ORDER BY namespace`,
        { keyId },
      );
      return rows.map((r) => ({ namespace: r.namespace, rows: Number(r.rows), updated_at: r.updated_at }));
    },
    async exists(keyId, namespace) {
      const rows = await db.all(`SELECT 1 FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
      return rows.length > 0;
    },
    delete: (keyId, namespace) =>
      db.transaction(async (tx) => {
        const rows = await tx.all(`SELECT 1 FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
        if (rows.length === 0) return false;
        await tx.run(`DELETE FROM user_labels WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
        await tx.run(`DELETE FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
        return true;
      }),
    csvExport: (keyId, namespace) => ({
      sql: `SELECT address, label, category, network FROM user_labels WHERE key_id = $keyId AND namespace = $namespace ORDER BY pos`,
      params: { keyId, namespace },
    }),
  };
}
