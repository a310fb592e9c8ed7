/**
 * Label namespaces on ClickHouse. A change rewrites the namespace tables in
 * the scratch DuckDB, where the DuckDB operations run as on a DuckDB store,
 * and swaps each table in whole (./publish.ts, `rewriteTables`), labels
 * first: a reader may see the new labels a moment before the new namespace
 * list, never half of either.
 */
import { LABEL_CSV_COLUMNS, type LabelNamespaceOperations, type NamespaceInfo } from '../types.ts';
import { exportSelectList } from './format.ts';
import { rewriteTables } from './publish.ts';
import type { ClickHouseStore } from './types.ts';

const NAMESPACE_TABLES = ['user_labels', 'label_namespaces'];

/** A put the scratch store refused (too many namespaces): thrown to abandon the rewrite, so nothing is swapped in. */
class Refused extends Error {}

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseLabelNamespaces(store: () => ClickHouseStore): LabelNamespaceOperations {
  return {
    async put(keyId, namespace, rows, maxNamespaces) {
      try {
        return await rewriteTables(store(), NAMESPACE_TABLES, async (scratch) => {
          const out = await scratch.labelNamespaces.put(keyId, namespace, rows, maxNamespaces);
          if (!out) throw new Refused();
          return out;
        });
      } catch (e) {
        if (e instanceof Refused) return null;
        throw e;
      }
    },
    async list(keyId) {
      const ch = store();
      const rows = await ch.query<{ namespace: string; rows: number; updated_at: string }>(
        `SELECT namespace, rows, concat(formatDateTime(updated_at, '%Y-%m-%dT%H:%i:%S', 'UTC'), '.',
              leftPad(toString(toUnixTimestamp64Milli(updated_at) % 1000), 3, '0'), 'Z') AS updated_at
       FROM ${ch.table('label_namespaces')} FINAL WHERE key_id = {keyId:String} ORDER BY namespace`,
        { keyId },
      );
      return rows.map((r): NamespaceInfo => ({ namespace: r.namespace, rows: Number(r.rows), updated_at: r.updated_at }));
    },
    async exists(keyId, namespace) {
      const ch = store();
      const found = await ch.query(`SELECT 1 FROM ${ch.table('label_namespaces')} FINAL WHERE key_id = {keyId:String} AND namespace = {namespace:String}`, { keyId, namespace });
      return found.length > 0;
    },
    delete: (keyId, namespace) => rewriteTables(store(), NAMESPACE_TABLES, (scratch) => scratch.labelNamespaces.delete(keyId, namespace)),
    csvExport(keyId, namespace) {
      // Each field written as DuckDB's CSV writes it (docs/storage.md).
      const fields = exportSelectList(
        LABEL_CSV_COLUMNS.map((name) => ({ sql: `u.${name}`, name, type: 'string' as const })),
        'csv',
      );
      return {
        sql: `SELECT ${fields} FROM ${store().table('user_labels')} AS u
      WHERE u.key_id = {keyId:String} AND u.namespace = {namespace:String} ORDER BY u.pos`,
        params: { keyId, namespace },
      };
    },
  };
}
