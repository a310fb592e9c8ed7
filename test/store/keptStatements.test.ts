/**
 * Statements kept per view connection (src/store/duckdb/keptStatements.ts):
 * a kept statement answers each call with that call's values, also when runs
 * of one text overlap, sees what a later write committed (rows, a table
 * replaced, a column added), and a connection keeps a bounded number of them;
 * a snapshot's reads use them.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_STATEMENTS_PER_CONNECTION, keptStatementCount, runKept } from '../../src/store/duckdb/keptStatements.ts';
import { readOnePiece } from '../../src/store/duckdb/onePiece.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

let instance: DuckDBInstance;
let writer: DuckDBConnection;
let reader: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  writer = await instance.connect();
  reader = await instance.connect();
  await writer.run('CREATE TABLE t AS SELECT range AS n, range * 10 AS v FROM range(100)');
});
afterAll(() => {
  reader?.closeSync();
  writer?.closeSync();
  instance?.closeSync();
});

const SQL = 'SELECT n, v FROM t WHERE n BETWEEN $lo AND $hi ORDER BY n';
const piece = (lo: number, hi: number) => readOnePiece(reader, SQL, { lo, hi }, false);

describe('statements kept on a connection', () => {
  it('answers each call with its own values, from one statement', async () => {
    expect((await piece(1, 2))?.body).toBe('{"n":1,"v":10}\n{"n":2,"v":20}\n');
    expect((await piece(50, 50))?.body).toBe('{"n":50,"v":500}\n');
    expect((await piece(200, 300))?.rows).toBe(0);
    // One statement kept for the text, not one per call.
    expect(keptStatementCount(reader)).toBe(1);
  });

  it('runs of one text at once each get their own values: a run that finds the statement in use prepares its own', async () => {
    const conn = await instance.connect();
    try {
      const rows = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await runKept(conn, 'SELECT $x::INTEGER * 2 AS y', { x: i })).getRowObjectsJS()));
      expect(rows).toEqual(Array.from({ length: 20 }, (_, i) => [{ y: i * 2 }]));
      expect(keptStatementCount(conn)).toBe(1);
    } finally {
      conn.closeSync();
    }
  });

  it('sees rows committed after it was prepared, a table replaced and a column added', async () => {
    expect((await piece(100, 100))?.rows).toBe(0);
    await writer.run('INSERT INTO t VALUES (100, 7)');
    expect((await piece(100, 100))?.body).toBe('{"n":100,"v":7}\n');
    await writer.run('CREATE OR REPLACE TABLE t AS SELECT range AS n, -range AS v FROM range(5)');
    expect((await piece(3, 3))?.body).toBe('{"n":3,"v":-3}\n');
    await writer.run('ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 1');
    await writer.run('INSERT INTO t VALUES (7, 70, 2)');
    expect((await piece(7, 7))?.body).toBe('{"n":7,"v":70}\n');
  });

  it(`keeps at most ${KEPT_STATEMENTS_PER_CONNECTION} per connection, and an evicted text is prepared again`, async () => {
    const conn = await instance.connect();
    try {
      for (let i = 0; i < KEPT_STATEMENTS_PER_CONNECTION + 8; i++) {
        expect(await (await runKept(conn, `SELECT ${i} + $x AS y`, { x: 1 })).getRows()).toEqual([[i + 1]]);
      }
      expect(keptStatementCount(conn)).toBe(KEPT_STATEMENTS_PER_CONNECTION);
      expect(await (await runKept(conn, 'SELECT 0 + $x AS y', { x: 41 })).getRows()).toEqual([[41]]);
    } finally {
      conn.closeSync();
    }
  });
});

describe('on a store, through snapshot views', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore({ dataDir: null });
    await engineSql(store).run('CREATE TABLE k AS SELECT range AS n FROM range(10)');
  });
  afterAll(async () => store?.close());

  const smallJson = async (lo: number, hi: number) => {
    const view = await store.snapshot();
    try {
      const exp = await view.copyToStream('SELECT n FROM k WHERE n BETWEEN $lo AND $hi ORDER BY n', { lo, hi }, 'json', { small: true });
      return exp.whole?.toString('utf8');
    } finally {
      await view.close();
    }
  };

  it("a snapshot's reads of one text answer each with its own values, also when they overlap", async () => {
    const view = await store.snapshot();
    try {
      const rows = await Promise.all([1, 2, 3, 1].map((n) => engineSql(view).all<{ n: bigint }>('SELECT n FROM k WHERE n = $n', { n })));
      expect(rows.map((r) => r.map((x) => Number(x.n)))).toEqual([[1], [2], [3], [1]]);
      expect(await engineSql(view).all<{ c: bigint }>('SELECT count(*) AS c FROM k')).toEqual([{ c: 10n }]);
    } finally {
      await view.close();
    }
  });

  it('a view on a reused connection answers with the values and rows of its own request', async () => {
    for (let round = 0; round < 3; round++) {
      expect(await smallJson(round, round + 1)).toBe(`{"n":${round}}\n{"n":${round + 1}}\n`);
    }
    await engineSql(store).run('INSERT INTO k VALUES (10)');
    expect(await smallJson(9, 10)).toBe('{"n":9}\n{"n":10}\n');
  });
});
