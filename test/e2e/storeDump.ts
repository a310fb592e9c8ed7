import type { Store } from '../../src/store/createStore.ts';

/** Every row of the tables EVM ingestion writes, in a stable order, for store comparisons. */
export async function dumpStore(store: Store): Promise<string> {
  const tables = await store.all<{ name: string }>(
    `SELECT table_name AS name FROM duckdb_tables()
     WHERE table_name LIKE 'evm_%' OR table_name IN ('blocks', 'pools', 'coverage', 'token_cache', 'dataset_order') ORDER BY 1`,
  );
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) out[name] = await store.all(`SELECT * FROM ${name} ORDER BY ALL`);
  return JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}
