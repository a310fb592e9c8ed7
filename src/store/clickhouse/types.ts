/** The ClickHouse store's own interface: what ClickHouse code of the store folder uses beside the contract. */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Row, Store, StoreValue } from '../types.ts';

/** A value ClickHouse binds to a `{name:Type}` placeholder. */
export type ClickHouseValue = StoreValue | readonly string[] | readonly number[];

export interface ClickHouseStore extends Store {
  readonly engine: 'clickhouse';
  readonly database: string;
  /** The cluster its tables are created on (`--cluster`), else null. */
  readonly cluster: string | null;
  readonly client: ClickHouseClient;
  /** The quoted, database-qualified name of one of the store's tables. */
  table(name: string): string;
  /** Rows of a SELECT written in ClickHouse SQL, as JSON values (64-bit integers as numbers). */
  query<T = Row>(sql: string, params?: Record<string, ClickHouseValue>): Promise<T[]>;
  /** A statement without result (DDL, INSERT … SELECT, lightweight DELETE). */
  command(sql: string, params?: Record<string, ClickHouseValue>): Promise<void>;
  /** Inserts rows given as objects by column name; one INSERT, which ClickHouse applies whole. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
}
