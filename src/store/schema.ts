/**
 * The store's tables. Dataset tables are derived from the catalog; the others
 * (blocks, coverage, reference data, keys) are declared here.
 */
import { catalog } from '../catalog/index.ts';
import type { StoredType, TableDef } from '../catalog/types.ts';

export const SCHEMA_VERSION = 1;

/** DuckDB's type for each catalog column type; raw on-chain integers are exact BIGNUMs. */
export const DUCKDB_TYPES: Readonly<Record<StoredType, string>> = {
  string: 'VARCHAR',
  boolean: 'BOOLEAN',
  uint8: 'UTINYINT',
  int32: 'INTEGER',
  int64: 'BIGINT',
  uint64: 'UBIGINT',
  float64: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  uint256: 'BIGNUM',
  int256: 'BIGNUM',
};

export function tableDdl(t: TableDef): string {
  const cols = t.columns.map((c) => `"${c.name}" ${DUCKDB_TYPES[c.type]}`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${t.name} (${cols})`;
}

/** Tables that are not datasets. */
const SYSTEM_DDL = [
  `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)`,
  // One row per block of every chain network, for time ranges and reorg checks.
  `CREATE TABLE IF NOT EXISTS blocks (network VARCHAR, number BIGINT, time TIMESTAMP, hash VARCHAR, parent_hash VARCHAR)`,
  // Inclusive intervals that ingestion has completed, per dataset and scope
  // (network for chains, token for venues). Units: blocks, or epoch milliseconds for venues.
  `CREATE TABLE IF NOT EXISTS coverage (dataset VARCHAR, scope VARCHAR, lo BIGINT, hi BIGINT)`,
  // When each dataset and scope last gained coverage (GET /v1/coverage shows it as last_advanced).
  `CREATE TABLE IF NOT EXISTS coverage_state (dataset VARCHAR, scope VARCHAR, advanced_at TIMESTAMP)`,
  // What ingestion last saw of a chain: the confirmation depth it keeps behind the head, and the head.
  `CREATE TABLE IF NOT EXISTS chain_state (scope VARCHAR, confirmations INTEGER, head BIGINT, updated_at TIMESTAMP)`,
  // The chain log: blocks a rollback removed, kept so that a stream cursor on one of them can be traced back to the canonical chain.
  `CREATE TABLE IF NOT EXISTS orphaned_blocks (network VARCHAR, number BIGINT, hash VARCHAR, parent_hash VARCHAR, orphaned_at TIMESTAMP)`,
  // Which version (sha256) of each archive file filled the store, so files replaced upstream can be re-ingested.
  `CREATE TABLE IF NOT EXISTS ingest_files (source VARCHAR, path VARCHAR, sha256 VARCHAR, rows BIGINT, ingested_at TIMESTAMP)`,
  // Datasets whose rows for a scope were appended out of order (a re-ingest, a
  // backfill behind the tip): queries over them must sort. Absent = in order.
  `CREATE TABLE IF NOT EXISTS dataset_order (dataset VARCHAR, scope VARCHAR, unordered BOOLEAN)`,
  `CREATE TABLE IF NOT EXISTS tokens (symbol VARCHAR, name VARCHAR, aliases VARCHAR[], network VARCHAR, address VARCHAR, decimals UTINYINT)`,
  // What ingestion read on chain about tokens the registry does not list (decimals(), symbol()).
  // Kept apart from `tokens` so that a contract naming itself "USDC" never joins a symbol lookup.
  `CREATE TABLE IF NOT EXISTS token_cache (network VARCHAR, address VARCHAR, symbol VARCHAR, decimals UTINYINT)`,
  `CREATE TABLE IF NOT EXISTS labels (address VARCHAR, label VARCHAR, category VARCHAR, network VARCHAR)`,
  // Label namespaces: a key's own labels (src/reference/userLabels.ts), readable only under that key's id.
  `CREATE TABLE IF NOT EXISTS label_namespaces (key_id VARCHAR, namespace VARCHAR, rows INTEGER, updated_at TIMESTAMP)`,
  `CREATE TABLE IF NOT EXISTS user_labels (key_id VARCHAR, namespace VARCHAR, pos INTEGER, address VARCHAR, label VARCHAR, category VARCHAR, network VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS pools (network VARCHAR, pool_address VARCHAR, fee INTEGER,
     token0_address VARCHAR, token0 VARCHAR, token0_decimals UTINYINT,
     token1_address VARCHAR, token1 VARCHAR, token1_decimals UTINYINT, created_block BIGINT)`,
  // USD prices per token and minute, rebuilt from venue candles by refreshPrices; minute NULL is a peg valid at every minute.
  `CREATE TABLE IF NOT EXISTS prices (token VARCHAR, minute TIMESTAMP, usd DOUBLE)`,
  // Operator-defined datasets: the JSON declaration of each name as last saved (src/store/customDatasets.ts).
  `CREATE TABLE IF NOT EXISTS custom_datasets (name VARCHAR, declaration VARCHAR, declared_at TIMESTAMP)`,
  // One row per dataset and network of each `chainq verify` run: what was compared with which node, and how it ended
  // (src/store/verification.ts). `ranges` and `mismatch_blocks` are JSON arrays.
  `CREATE TABLE IF NOT EXISTS verifications (network VARCHAR, dataset VARCHAR, verified_at TIMESTAMP, node VARCHAR, sampled BOOLEAN,
     ranges VARCHAR, blocks BIGINT, result VARCHAR, mismatches BIGINT, mismatch_blocks VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS api_keys (id VARCHAR, key_hash VARCHAR, prefix VARCHAR, plan VARCHAR, name VARCHAR,
     created_at TIMESTAMP, revoked_at TIMESTAMP)`,
  // The embedded quota ledger: one row per charged request (src/metering/embeddedBackend.ts).
  `CREATE TABLE IF NOT EXISTS usage_charges (key_id VARCHAR, period VARCHAR, request_id VARCHAR, cost BIGINT,
     admitted_at TIMESTAMP, charged_at TIMESTAMP)`,
  // The route charged, for GET /v1/usage; stores made before it have the column added, empty for old rows.
  `ALTER TABLE usage_charges ADD COLUMN IF NOT EXISTS endpoint VARCHAR`,
];

export function schemaDdl(): string[] {
  const tables = new Map(catalog.map((e) => [e.table.name, e.table]));
  return [...SYSTEM_DDL, ...[...tables.values()].map(tableDdl)];
}
