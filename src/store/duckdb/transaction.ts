/** DuckDB transactions: statements on a dedicated connection, and appends typed by column. */
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { DuckDBTimestampValue, DuckDBTypeId } from './nodeApi.ts';
import type { AppendValue, SqlParams } from '../types.ts';
import type { Tx } from './types.ts';

/** A statement's rows as JS objects. */
export async function allOn<T>(conn: DuckDBConnection, sql: string, params?: SqlParams): Promise<T[]> {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJS() as T[];
}

/** One transaction on a dedicated connection, its appender writes typed (see `Tx.append`). */
export async function inTransaction<T>(instance: DuckDBInstance, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const conn = await instance.connect();
  try {
    await conn.run('BEGIN TRANSACTION');
    const tx: Tx = {
      all: (sql, params) => allOn(conn, sql, params),
      run: async (sql, params) => {
        await conn.run(sql, params);
      },
      append: (table, rows) => append(conn, table, rows),
    };
    const out = await fn(tx);
    await conn.run('COMMIT');
    return out;
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    conn.closeSync();
  }
}

async function append(conn: DuckDBConnection, table: string, rows: readonly (readonly AppendValue[])[]): Promise<void> {
  const appender = await conn.createAppender(table);
  try {
    const write = columnWriters(appender);
    for (const row of rows) {
      for (let i = 0; i < write.length; i++) {
        const v = row[i];
        if (v === null || v === undefined) appender.appendNull();
        else write[i]!(v);
      }
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

type ColumnWriter = (v: Exclude<AppendValue, null>) => void;

/**
 * One typed writer per column. The generic appendValue infers a type per value
 * and casts, which is ~10x slower than the typed appends at ingestion volumes.
 * A value of another JS type than the column's takes the generic path, as before.
 */
function columnWriters(a: DuckDBAppender): ColumnWriter[] {
  const out: ColumnWriter[] = [];
  for (let i = 0; i < a.columnCount; i++) {
    const generic: ColumnWriter = (v) => a.appendValue(v instanceof Date ? new DuckDBTimestampValue(BigInt(v.getTime()) * 1000n) : v);
    const typed =
      <T>(test: (v: unknown) => v is T, write: (v: T) => void): ColumnWriter =>
      (v) =>
        test(v) ? write(v) : generic(v);
    const isString = (v: unknown): v is string => typeof v === 'string';
    const isNumber = (v: unknown): v is number => typeof v === 'number';
    const isInt = (v: unknown): v is bigint | number => typeof v === 'bigint' || Number.isSafeInteger(v);
    const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
    switch (a.columnType(i).typeId) {
      case DuckDBTypeId.VARCHAR:
        out.push(typed(isString, (v) => a.appendVarchar(v)));
        break;
      case DuckDBTypeId.BIGINT:
        out.push(typed(isInt, (v) => a.appendBigInt(BigInt(v))));
        break;
      case DuckDBTypeId.UBIGINT:
        out.push(typed(isInt, (v) => a.appendUBigInt(BigInt(v))));
        break;
      case DuckDBTypeId.INTEGER:
        out.push(typed(isNumber, (v) => a.appendInteger(v)));
        break;
      case DuckDBTypeId.UTINYINT:
        out.push(typed(isNumber, (v) => a.appendUTinyInt(v)));
        break;
      case DuckDBTypeId.DOUBLE:
        out.push(typed(isNumber, (v) => a.appendDouble(v)));
        break;
      case DuckDBTypeId.BOOLEAN:
        out.push(typed(isBool, (v) => a.appendBoolean(v)));
        break;
      case DuckDBTypeId.BIGNUM:
        // The client's BIGNUM encoding of zero is a blob DuckDB rejects when the row is read
        // ("Invalid blob size"); zero takes the generic path, which DuckDB casts from an integer.
        out.push(
          typed(isInt, (v) => {
            const n = BigInt(v);
            if (n === 0n) a.appendValue(n);
            else a.appendBigNum(n);
          }),
        );
        break;
      case DuckDBTypeId.TIMESTAMP:
        out.push((v) => {
          if (v instanceof Date) a.appendTimestamp(new DuckDBTimestampValue(BigInt(v.getTime()) * 1000n));
          else generic(v);
        });
        break;
      default:
        out.push(generic);
    }
  }
  return out;
}
