/**
 * Reference data in DuckDB: CSV files are read by DuckDB's reader, rows
 * replace earlier rows with the same key, and each import or rebuild is one
 * transaction.
 */
import { stakingWithdrawalRequest } from '../../protocols/staking/catalog.ts';
import { venueAOhlcv } from '../../catalog/venues/venue_a.ts';
import type { PriceRefresh, PriceRules, ReferenceOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

type Statements = Pick<DuckDbStatements, 'all' | 'transaction'>;

/** The operations over a store's statements (a snapshot's `transaction` refuses, so it can only count). */
export function duckDbReference(db: Statements): ReferenceOperations {
  return {
    importTokens: (file) => importTokens(db, file),
    importLabels: (file) => importLabels(db, file),
    count: (table) => rowCount(db, table),
    refreshPrices: (rules) => refreshPrices(db, rules),
  };
}

const EVM_ADDRESS = `regexp_full_match(address, '0x[0-9a-fA-F]{40}')`;

async function importTokens(store: Statements, file: string): Promise<number> {
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

async function importLabels(store: Statements, file: string): Promise<number> {
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

async function rowCount(store: Statements, table: 'tokens' | 'labels'): Promise<number> {
  const [r] = await store.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(r?.n ?? 0);
}

const list = (xs: readonly string[]) => xs.map((x) => `'${x.replaceAll("'", "''")}'`).join(', ');

async function refreshPrices(store: Statements, rules: PriceRules): Promise<PriceRefresh> {
  const klines = venueAOhlcv.table.name;
  const requests = stakingWithdrawalRequest.table.name;
  // Symbols below come from the price rules, constants of src/reference/prices.ts, never request text.
  const aliases = Object.entries(rules.aliases)
    .map(([a, b]) => `('${a}', '${b}')`)
    .join(', ');
  return store.transaction(async (tx) => {
    await tx.run('DELETE FROM prices');
    // Several candles in one minute (a re-imported file) must not duplicate a price.
    await tx.run(`INSERT INTO prices
      SELECT upper(token), date_trunc('minute', time), avg(close) FROM ${klines}
      WHERE close > 0 GROUP BY ALL`);
    const marketRows = await tx.all<{ token: string }>('SELECT DISTINCT token FROM prices');
    const markets = new Set(marketRows.map((r) => r.token));
    const notMarket = (s: string) => !markets.has(s);

    const pegs = rules.pegged.filter(notMarket);
    if (pegs.length) await tx.run(`INSERT INTO prices SELECT token, NULL, 1.0 FROM (VALUES ${pegs.map((p) => `('${p}')`).join(', ')}) v(token)`);

    if (notMarket('WSTETH')) {
      await tx.run(`INSERT INTO prices
        WITH r AS (SELECT time, burned_amount / burned_shares AS rate FROM ${requests} WHERE burned_shares > 0 AND burned_amount > 0),
             earliest AS (SELECT rate FROM r ORDER BY time LIMIT 1)
        SELECT 'WSTETH', e.minute, e.usd * coalesce(r.rate, (SELECT rate FROM earliest))
        FROM (SELECT minute, usd FROM prices WHERE token = 'ETH' AND minute IS NOT NULL) e
        ASOF LEFT JOIN r ON e.minute >= r.time
        WHERE EXISTS (SELECT 1 FROM r)`);
    }

    const aliased = Object.keys(rules.aliases).filter(notMarket);
    if (aliased.length) {
      await tx.run(`INSERT INTO prices
        SELECT a.alias, p.minute, p.usd FROM prices p JOIN (VALUES ${aliases}) a(alias, base) ON p.token = a.base
        WHERE a.alias IN (${list(aliased)})`);
    }

    const [summary] = await tx.all<{ tokens: bigint; rows: bigint; pegged: bigint }>(
      'SELECT count(DISTINCT token) AS tokens, count(*) AS rows, count(*) FILTER (WHERE minute IS NULL) AS pegged FROM prices',
    );
    const tokens = Number(summary?.tokens ?? 0);
    const pegged = Number(summary?.pegged ?? 0);
    return { markets: markets.size, derived: tokens - markets.size - pegged, pegged, rows: Number(summary?.rows ?? 0) };
  });
}
