/**
 * The store's tables in ClickHouse (docs/storage.md, "ClickHouse tables").
 * Dataset tables come from the catalog: a MergeTree sorted by the dataset's
 * own order (network, block, position; token and time for venues), so a
 * range query reads only the granules of its range. Columns outside the
 * sorting key are Nullable, as every DuckDB column is.
 *
 * State that DuckDB updates in place inside a transaction (coverage, keys,
 * chain state) is a ReplacingMergeTree here: every change inserts the whole
 * new state of one entity with a higher version, in one INSERT (atomic in
 * ClickHouse), and readers take the latest version with `argMax`, which is
 * right whether or not the parts were merged yet.
 */
import { catalog } from '../../catalog/index.ts';
import type { TableDef } from '../../catalog/types.ts';
import { CLICKHOUSE_TYPES, ident } from './render.ts';

export const CLICKHOUSE_SCHEMA_VERSION = 1;

/**
 * `ON CLUSTER name` for every statement and replicated engines when a cluster
 * is named. State tables (keys, coverage, registry) are small: replicated
 * whole to every node, not sharded.
 */
export interface ClickHouseDdlOptions {
  readonly database: string;
  readonly cluster?: string | null;
}

/** Sharded tables keep one replica set per shard; the others are one replica set across every node. */
function engine(kind: 'MergeTree' | 'ReplacingMergeTree', opts: ClickHouseDdlOptions, version?: string, sharded = false): string {
  const arg = version ?? '';
  if (!opts.cluster) return `${kind}(${arg})`;
  const path = `'/clickhouse/tables/${sharded ? '{shard}/' : ''}{database}/{table}', '{replica}'`;
  return `Replicated${kind}(${path}${arg ? `, ${arg}` : ''})`;
}

const onCluster = (opts: ClickHouseDdlOptions): string => (opts.cluster ? ` ON CLUSTER ${ident(opts.cluster)}` : '');

/**
 * A dataset table. On a cluster, rows live in `<name>_local` (replicated,
 * on every shard) and `<name>` is the Distributed table over them, sharded by
 * the first sorting key (network, or token for venues), so one network's rows
 * sit on one shard and a range query reads one shard's range.
 */
export function clickHouseTableDdl(t: TableDef, opts: ClickHouseDdlOptions): string[] {
  const keys = new Set(t.orderBy);
  const cols = t.columns
    .map((c) => {
      const type = CLICKHOUSE_TYPES[c.type];
      return `${ident(c.name)} ${keys.has(c.name) ? type : `Nullable(${type})`}`;
    })
    .join(', ');
  const first = t.orderBy[0];
  const db = ident(opts.database);
  const local = opts.cluster ? `${t.name}_local` : t.name;
  const stored = `CREATE TABLE IF NOT EXISTS ${db}.${ident(local)}${onCluster(opts)} (${cols})
    ENGINE = ${engine('MergeTree', opts, undefined, true)}${first ? ` PARTITION BY ${ident(first)}` : ''} ORDER BY (${t.orderBy.map(ident).join(', ')})`;
  if (!opts.cluster) return [stored];
  const shardKey = first ? `cityHash64(${ident(first)})` : 'rand()';
  return [
    stored,
    `CREATE TABLE IF NOT EXISTS ${db}.${ident(t.name)}${onCluster(opts)} AS ${db}.${ident(local)}
    ENGINE = Distributed(${quoteString(opts.cluster)}, ${quoteString(opts.database)}, ${quoteString(local)}, ${shardKey})`,
  ];
}

const quoteString = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const TIME = `DateTime64(3, 'UTC')`;

/** Tables that are not datasets: name, columns, engine and sorting key. */
const SYSTEM_TABLES: readonly { name: string; columns: string; engine: 'MergeTree' | 'ReplacingMergeTree'; version?: string; orderBy: string; settings?: string }[] = [
  { name: 'schema_version', columns: 'version Int32', engine: 'MergeTree', orderBy: 'tuple()' },
  { name: 'blocks', columns: `network String, number Int64, time ${TIME}, hash String, parent_hash String`, engine: 'ReplacingMergeTree', orderBy: '(network, number)' },
  // The covered intervals of one dataset and scope, written whole at each change; the highest version is current.
  {
    name: 'coverage',
    columns: 'dataset String, scope String, intervals Array(Tuple(lo Int64, hi Int64)), version UInt64',
    engine: 'ReplacingMergeTree',
    version: 'version',
    orderBy: '(dataset, scope)',
  },
  { name: 'coverage_state', columns: `dataset String, scope String, advanced_at ${TIME}`, engine: 'ReplacingMergeTree', version: 'advanced_at', orderBy: '(dataset, scope)' },
  // The chain log (src/store/chainLog.ts): blocks a rollback removed.
  { name: 'orphaned_blocks', columns: `network String, number Int64, hash String, parent_hash String, orphaned_at ${TIME}`, engine: 'MergeTree', orderBy: '(network, number)' },
  { name: 'chain_state', columns: `scope String, confirmations Int32, head Nullable(Int64), updated_at ${TIME}`, engine: 'ReplacingMergeTree', version: 'updated_at', orderBy: 'scope' },
  { name: 'ingest_files', columns: `source String, path String, sha256 String, rows Int64, ingested_at ${TIME}`, engine: 'MergeTree', orderBy: '(source, path)' },
  { name: 'tokens', columns: 'symbol String, name Nullable(String), aliases Array(String), network String, address String, decimals UInt8', engine: 'MergeTree', orderBy: '(network, symbol)' },
  { name: 'token_cache', columns: 'network String, address String, symbol Nullable(String), decimals Nullable(UInt8)', engine: 'ReplacingMergeTree', orderBy: '(network, address)' },
  { name: 'labels', columns: 'address String, label Nullable(String), category Nullable(String), network Nullable(String)', engine: 'MergeTree', orderBy: 'address' },
  { name: 'label_namespaces', columns: `key_id String, namespace String, rows Int32, updated_at ${TIME}`, engine: 'ReplacingMergeTree', version: 'updated_at', orderBy: '(key_id, namespace)' },
  {
    name: 'user_labels',
    columns: 'key_id String, namespace String, pos Int32, address String, label Nullable(String), category Nullable(String), network Nullable(String)',
    engine: 'MergeTree',
    orderBy: '(key_id, namespace, pos)',
  },
  {
    name: 'pools',
    columns: `network String, pool_address String, fee Int32, token0_address String, token0 String, token0_decimals UInt8,
      token1_address String, token1 String, token1_decimals UInt8, created_block Nullable(Int64)`,
    engine: 'MergeTree',
    orderBy: '(network, pool_address)',
  },
  // A NULL minute is a peg valid at every minute.
  { name: 'prices', columns: `token String, minute Nullable(${TIME}), usd Float64`, engine: 'MergeTree', orderBy: '(token, minute)', settings: 'allow_nullable_key = 1' },
  // One row per state of a key; the highest version is current (a revocation or a plan change adds a row).
  {
    name: 'api_keys',
    columns: `id String, key_hash String, prefix String, plan String, name Nullable(String), created_at ${TIME}, revoked_at Nullable(${TIME}), version UInt64`,
    engine: 'ReplacingMergeTree',
    version: 'version',
    orderBy: 'id',
  },
  {
    name: 'usage_charges',
    columns: `key_id String, period String, request_id String, cost Int64, admitted_at ${TIME}, charged_at ${TIME}, endpoint Nullable(String)`,
    engine: 'MergeTree',
    orderBy: '(key_id, period, charged_at)',
  },
  // Operator-defined datasets (src/store/customDatasets.ts): the latest declaration of each name is current.
  { name: 'custom_datasets', columns: `name String, declaration String, declared_at ${TIME}`, engine: 'ReplacingMergeTree', version: 'declared_at', orderBy: 'name' },
  // One row per dataset and network of each `chainq verify` run (src/store/verification.ts).
  {
    name: 'verifications',
    columns: `network String, dataset String, verified_at ${TIME}, node String, sampled Bool, ranges String, blocks Int64, result String, mismatches Int64, mismatch_blocks String`,
    engine: 'MergeTree',
    orderBy: '(dataset, network, verified_at)',
  },
  // What `chainq copy` has moved into this store, so that a copy resumes where it stopped.
  { name: 'copy_progress', columns: `source String, part String, rows Int64, copied_at ${TIME}`, engine: 'ReplacingMergeTree', version: 'copied_at', orderBy: '(source, part)' },
];

export const CLICKHOUSE_SYSTEM_TABLES: readonly string[] = SYSTEM_TABLES.map((t) => t.name);

/** Every table `clickHouseSchemaDdl` creates, by name (a cluster's `<table>_local` tables included). */
export function clickHouseTableNames(opts: ClickHouseDdlOptions): string[] {
  const datasets = [...new Set(catalog.map((e) => e.table.name))];
  return [...CLICKHOUSE_SYSTEM_TABLES, ...datasets, ...(opts.cluster ? datasets.map((t) => `${t}_local`) : [])];
}

export function clickHouseSchemaDdl(opts: ClickHouseDdlOptions): string[] {
  const db = ident(opts.database);
  const system = SYSTEM_TABLES.map(
    (t) => `CREATE TABLE IF NOT EXISTS ${db}.${ident(t.name)}${onCluster(opts)} (${t.columns})
    ENGINE = ${engine(t.engine, opts, t.version)} ORDER BY ${t.orderBy}${t.settings ? ` SETTINGS ${t.settings}` : ''}`,
  );
  const tables = new Map(catalog.map((e) => [e.table.name, e.table]));
  return [`CREATE DATABASE IF NOT EXISTS ${db}${onCluster(opts)}`, ...system, ...[...tables.values()].flatMap((t) => clickHouseTableDdl(t, opts))];
}
