import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

/**
 * Every row of the tables EVM ingestion writes, in a stable order, for store
 * comparisons. `physical` adds dataset_order, the flags saying which datasets
 * were appended out of block order (a re-ingest sets them, by design).
 */
export async function dumpStore(store: Store, opts: { physical?: boolean } = {}): Promise<string> {
  const extra = opts.physical ? ", 'dataset_order'" : '';
  const tables = await engineSql(store).all<{ name: string }>(
    `SELECT table_name AS name FROM duckdb_tables()
     WHERE table_name LIKE 'evm_%' OR table_name IN ('blocks', 'pools', 'coverage', 'token_cache'${extra}) ORDER BY 1`,
  );
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) out[name] = await engineSql(store).all(`SELECT * FROM ${name} ORDER BY ALL`);
  return JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}
