/**
 * What tests read or write beside the API and the store's operations, in the
 * engine's own SQL: DuckDB's (`engineSql`), or ClickHouse's when the `chdb`
 * project serves from chDB (testApp.ts). Fixtures are written in the DuckDB oracle (every test store
 * has one) and mirrored into the served store, so that the test's own
 * expectations, computed on the oracle, and the API read the same rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clickHouseOf } from '../../src/store/clickhouse/createClickHouseStore.ts';
import { columnsOf, columnText, copyCoverage, insertFromDuckDb } from '../../src/store/clickhouse/copyFromDuckDb.ts';
import { publishBatch, type BatchTable } from '../../src/store/clickhouse/publish.ts';
import { addCoverage } from '../../src/store/duckdb/coverageWrites.ts';
import { duckDbOf, requireDuckDb, type DuckDbStatements, type Tx } from '../../src/store/duckdb/types.ts';
import type { Store } from '../../src/store/types.ts';
import { noteChanged } from './testApp.ts';

/**
 * A DuckDB store's raw statements, for tests and benches that set up fixtures
 * or inspect what the engine holds (rows of a table, a column's type) where
 * no store operation says it. The Store contract has no SQL; this handle is
 * the tests' way in, and test/architecture.test.ts keeps every other test
 * file from reaching the engine's statements by itself.
 */
export function engineSql(store: Store): DuckDbStatements {
  return requireDuckDb(store, 'engineSql');
}

/**
 * Replaces the served store's `tables` with the oracle's, after a fixture
 * changed them in the oracle (`coverage` included). Nothing to do when the
 * oracle is the served store (DuckDB).
 */
export async function mirrorTables(served: Store, oracle: Store, tables: readonly string[]): Promise<void> {
  if (served === oracle) return;
  noteChanged(served);
  const ch = clickHouseOf(served);
  const duck = duckDbOf(oracle);
  if (!ch || !duck) throw new Error('mirrorTables copies a DuckDB oracle into a ClickHouse store');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-mirror-'));
  try {
    for (const table of tables) {
      // Coverage has its own shape on ClickHouse: one row of intervals per dataset and scope.
      if (table === 'coverage') {
        await copyCoverage(duck, ch);
        continue;
      }
      await ch.command(`TRUNCATE TABLE ${ch.table(table)}`);
      const columns = await columnsOf(duck, table);
      await insertFromDuckDb(duck, `SELECT ${columns.map(columnText).join(', ')} FROM ${table}`, {}, ch, table, dir);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of a table of the served store. */
export async function countRows(store: Store, table: string): Promise<number> {
  const ch = clickHouseOf(store);
  const rows = ch ? await ch.query<{ n: number }>(`SELECT count() AS n FROM ${ch.table(table)}`) : await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]?.n ?? 0);
}

export interface LedgerRow {
  readonly request_id: string;
  readonly cost: number;
  readonly endpoint: string | null;
}

/** The usage ledger's rows of one key and month, newest charge first, read from the store itself. */
export async function ledgerRows(store: Store, keyId: string, period: string): Promise<LedgerRow[]> {
  // Charges are durable in the ledger's journal first and reach the table in the background.
  await store.ledger?.settle();
  const ch = clickHouseOf(store);
  const rows = ch
    ? await ch.query<LedgerRow>(
        `SELECT request_id, toInt32(cost) AS cost, endpoint FROM ${ch.table('usage_charges')}
        WHERE key_id = {keyId:String} AND period = {period:String} ORDER BY charged_at DESC, admitted_at DESC`,
        { keyId, period },
      )
    : await engineSql(store).all<LedgerRow>(
        `SELECT request_id, cost::INTEGER AS cost, endpoint FROM usage_charges
        WHERE key_id = $keyId AND period = $period ORDER BY charged_at DESC, admitted_at DESC`,
        { keyId, period },
      );
  return rows.map((r) => ({ ...r, cost: Number(r.cost) }));
}

/** Which of `requestIds` the usage ledger holds a charge for. */
export async function chargedRequestIds(store: Store, requestIds: readonly string[]): Promise<string[]> {
  await store.ledger?.settle();
  const ch = clickHouseOf(store);
  const rows = ch
    ? await ch.query<{ request_id: string }>(`SELECT request_id FROM ${ch.table('usage_charges')} WHERE has({ids:Array(String)}, request_id)`, { ids: requestIds })
    : await engineSql(store).all<{ request_id: string }>(`SELECT request_id FROM usage_charges WHERE request_id IN (SELECT unnest($ids::VARCHAR[]))`, { ids: `[${requestIds.join(',')}]` });
  return rows.map((r) => r.request_id);
}

export interface ChainBatch {
  readonly network: string;
  readonly lo: number;
  readonly hi: number;
  /** Tables `write` fills with rows of [lo, hi], and their block column. */
  readonly tables: readonly BatchTable[];
  /** Datasets that cover [lo, hi] once the batch is in. */
  readonly covers: readonly string[];
}

/**
 * A batch of chain rows and its coverage, written as ingestion writes one
 * (docs/storage.md): in one DuckDB transaction, or on ClickHouse written by
 * `write` into the scratch DuckDB and published.
 */
export async function writeChainBatch(store: Store, batch: ChainBatch, write: (tx: Tx) => Promise<unknown>): Promise<void> {
  noteChanged(store);
  const ch = clickHouseOf(store);
  if (ch) {
    const { network, ...rest } = batch;
    await publishBatch(ch, { ...rest, scopes: [network], extraTables: [], uncovers: [] }, async (scratch) => {
      await scratch.transaction(write);
    });
    return;
  }
  await engineSql(store).transaction(async (tx) => {
    await write(tx);
    for (const dataset of batch.covers) await addCoverage(tx, dataset, batch.network, batch.lo, batch.hi);
  });
}
