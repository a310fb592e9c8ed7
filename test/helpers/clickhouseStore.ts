/**
 * A ClickHouse store's raw handle for tests and benches: opening a store as
 * ClickHouseStore (its `query`, `command`, `insert`, `table` and client) or
 * a bare connection, to set up fixtures, inspect what chDB holds or measure
 * the engine alone. The Store contract has no SQL; outside
 * src/store/clickhouse/ this module is the one way to ClickHouse's own
 * statements, as engineSql.ts is to DuckDB's (test/architecture.test.ts
 * keeps every other file from reaching them by itself).
 */
export { clickHouseOf, createClickHouseStore, type ClickHouseStoreOptions } from '../../src/store/clickhouse/createClickHouseStore.ts';
export { connectClickHouse, openClickHouse } from '../../src/store/clickhouse/connect.ts';
export type { ClickHouseStore } from '../../src/store/clickhouse/types.ts';
