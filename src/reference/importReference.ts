/**
 * Reference data in the store: the token registry, address labels and dex
 * pools. The shipped seed lives in reference/seed/; operators add to it from
 * CSV with `chainq tokens import` and `chainq labels import`. DuckDB reads the
 * CSV; rows replace earlier rows with the same key.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clickHouseOf } from '../store/clickhouse/createClickHouseStore.ts';
import { rewriteTables } from '../store/clickhouse/publish.ts';
import type { Store } from '../store/types.ts';

export const SEED_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'seed');

const EVM_ADDRESS = `regexp_full_match(address, '0x[0-9a-fA-F]{40}')`;

/** Imports a token CSV: symbol,name,aliases(|-separated),network,address,decimals. Returns rows imported. */
export async function importTokens(store: Store, file: string): Promise<number> {
  const ch = clickHouseOf(store);
  if (ch) return rewriteTables(ch, ['tokens'], (scratch) => importTokens(scratch, file));
  return store.transaction(async (tx) => {
    await tx.run(
      `CREATE OR REPLACE TEMP TABLE token_import AS
      SELECT upper(trim(symbol)) AS symbol, trim(name) AS name,
             list_filter(list_transform(string_split(coalesce(aliases, ''), '|'), a -> upper(trim(a))), a -> a <> '') AS aliases,
             upper(trim(network)) AS network,
             CASE WHEN ${EVM_ADDRESS} THEN lower(trim(address)) ELSE coalesce(trim(address), '') END AS address,
             CAST(decimals AS UTINYINT) AS decimals
      FROM read_csv($file, header = true, all_varchar = true)`,
      { file },
    );
    await tx.run(`DELETE FROM tokens WHERE (symbol, network, address) IN (SELECT (symbol, network, address) FROM token_import)`);
    await tx.run(`INSERT INTO tokens SELECT * FROM token_import`);
    const [r] = await tx.all<{ n: bigint }>(`SELECT count(*) AS n FROM token_import`);
    await tx.run(`DROP TABLE token_import`);
    return Number(r?.n ?? 0);
  });
}

/** Imports a label CSV: address,label,category,network (network empty = every EVM network). */
export async function importLabels(store: Store, file: string): Promise<number> {
  const ch = clickHouseOf(store);
  if (ch) return rewriteTables(ch, ['labels'], (scratch) => importLabels(scratch, file));
  return store.transaction(async (tx) => {
    await tx.run(
      `CREATE OR REPLACE TEMP TABLE label_import AS
      SELECT CASE WHEN ${EVM_ADDRESS} THEN lower(trim(address)) ELSE trim(address) END AS address,
             trim(label) AS label, lower(trim(category)) AS category,
             nullif(upper(trim(coalesce(network, ''))), '') AS network
      FROM read_csv($file, header = true, all_varchar = true)`,
      { file },
    );
    await tx.run(`DELETE FROM labels WHERE (address, coalesce(network, '')) IN (SELECT (address, coalesce(network, '')) FROM label_import)`);
    await tx.run(`INSERT INTO labels SELECT * FROM label_import`);
    const [r] = await tx.all<{ n: bigint }>(`SELECT count(*) AS n FROM label_import`);
    await tx.run(`DROP TABLE label_import`);
    return Number(r?.n ?? 0);
  });
}

/** Loads the shipped seed into an empty registry. */
export async function loadSeed(store: Store): Promise<void> {
  if ((await rowCount(store, 'tokens')) === 0) await importTokens(store, path.join(SEED_DIR, 'tokens.csv'));
  if ((await rowCount(store, 'labels')) === 0) await importLabels(store, path.join(SEED_DIR, 'labels.csv'));
}

async function rowCount(store: Store, table: 'tokens' | 'labels'): Promise<number> {
  const ch = clickHouseOf(store);
  const [r] = ch ? await ch.query<{ n: number }>(`SELECT count() AS n FROM ${ch.table(table)}`) : await store.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(r?.n ?? 0);
}
