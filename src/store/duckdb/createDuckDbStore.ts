/**
 * The embedded store: one DuckDB database under the data directory. Only
 * src/store/ imports @duckdb/node-api. Results meant for clients leave the engine
 * as encoded bytes (COPY to a named pipe), never as JS rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fs from 'node:fs';
import { createExportLanes, defaultLaneLimits, type ExportLaneLimits } from '../exportLanes.ts';
import { createFifoPool } from '../fifoMaker.ts';
import type { ChargeLedger } from '../ledger.ts';
import { SCHEMA_VERSION, schemaDdl } from '../schema.ts';
import type { ResultColumn, SqlParams } from '../types.ts';
import { createChargeApplier } from './applyCharges.ts';
import { createDirectLedger, createJournalLedger, recoverJournal } from '../journalLedger.ts';
import { createCopier, describeOn } from './copy.ts';
import { duckDbChainReads } from './chainReads.ts';
import { duckDbCustomDatasets } from './customDatasets.ts';
import { duckDbMaintenance } from './maintenance.ts';
import { duckDbVerification } from './verification.ts';
import { duckDbCoverage } from './coverageReads.ts';
import { duckDbChainWrites } from './chainWrites.ts';
import { duckDbExports } from './exports.ts';
import { runKept } from './keptStatements.ts';
import { duckDbKeys } from './keys.ts';
import { duckDbLabelNamespaces } from './labelNamespaces.ts';
import { openInstance } from './open.ts';
import { duckDbReference } from './reference.ts';
import { duckDbRegistry } from './registry.ts';
import { renderDuckDb } from './render.ts';
import { repairBignumZeros } from './repairBignumZeros.ts';
import { copyDatabaseFile } from './copyOf.ts';
import { allOn, inTransaction } from './transaction.ts';
import { duckDbUsage } from './usage.ts';
import type { DuckDbStatements, DuckDbStore } from './types.ts';
import { duckDbVenues } from './venues.ts';
import { createViews, type Views } from './views.ts';
import { createWriteClock } from '../writeClock.ts';

export { copyOptions } from './copy.ts';
export { StoreLockedError } from './open.ts';

export interface DuckDbStoreOptions {
  /** Directory holding chainq.duckdb; null for an in-memory store (tests). */
  readonly dataDir: string | null;
  readonly readOnly?: boolean;
  readonly threads?: number;
  /** DuckDB memory_limit, e.g. '512MB'. */
  readonly memoryLimit?: string;
  /**
   * Exports running at once, per lane (src/store/exportLanes.ts); more wait
   * their turn. Default: 8 light, one heavy per engine thread.
   */
  readonly exportLanes?: ExportLaneLimits;
  /** High-water mark of a streamed export's buffer, in bytes (a server derives it from its memory bound). */
  readonly streamBufferBytes?: number;
  /** In memory only: start as a copy of this DuckDB database file (./copyOf.ts). */
  readonly copyOf?: string;
}

/** A streamed export's buffer when the opener sets none. */
const DEFAULT_STREAM_BUFFER = 256 * 1024;

/** The named operations of a store or a snapshot, over its statements. */
function operations(
  statements: DuckDbStatements,
  describe: (sql: string, params: SqlParams) => Promise<ResultColumn[]>,
  ledger: () => ChargeLedger | undefined,
  lookup: <T>(key: string, compute: () => Promise<T>) => Promise<T>,
  self: () => DuckDbStore,
) {
  return {
    keys: duckDbKeys(statements),
    usage: duckDbUsage(statements, ledger),
    chain: duckDbChainWrites(statements),
    labelNamespaces: duckDbLabelNamespaces(statements),
    reference: duckDbReference(statements),
    exports: duckDbExports(statements, describe),
    venues: duckDbVenues(statements),
    chainReads: duckDbChainReads(statements),
    coverage: duckDbCoverage(statements, lookup),
    registry: duckDbRegistry(statements, lookup),
    verification: duckDbVerification(statements),
    customDatasets: duckDbCustomDatasets(statements, lookup),
    maintenance: duckDbMaintenance(statements, self),
  };
}

export async function createDuckDbStore(opts: DuckDbStoreOptions): Promise<DuckDbStore> {
  if (opts.copyOf !== undefined && opts.dataDir !== null) throw new Error('copyOf opens an in-memory store (dataDir: null)');
  const readOnly = opts.readOnly ?? false;
  const { instance, fifos, fifoDir, threads } = await openInstance({ dataDir: opts.dataDir, readOnly, threads: opts.threads, memoryLimit: opts.memoryLimit });
  const shared = await instance.connect();
  const clock = createWriteClock(() => views.dropWarm());
  const views: Views = createViews(instance, clock);
  const copier = createCopier(instance, createExportLanes(opts.exportLanes ?? defaultLaneLimits(threads)), createFifoPool(fifos, fifoDir), opts.streamBufferBytes ?? DEFAULT_STREAM_BUFFER);

  if (opts.copyOf !== undefined) await copyDatabaseFile(shared, opts.copyOf);
  if (!readOnly) {
    for (const ddl of schemaDdl()) await shared.run(ddl);
    const v = await allOn<{ version: number }>(shared, 'SELECT version FROM schema_version');
    if (v.length === 0) await shared.run('INSERT INTO schema_version VALUES ($v)', { v: SCHEMA_VERSION });
    await repairBignumZeros(shared);
  }

  const charges = createChargeApplier(instance);
  let ledger: ChargeLedger | undefined;
  if (!readOnly && opts.dataDir) {
    await recoverJournal(opts.dataDir, charges.apply);
    ledger = createJournalLedger(opts.dataDir, charges.apply);
  } else if (!readOnly) ledger = createDirectLedger(charges.apply);

  const statements: DuckDbStatements = {
    all: (sql, params) => allOn(shared, sql, params),
    run: (sql, params) =>
      clock.writing(async () => {
        await shared.run(sql, params);
      }),
    transaction: (fn) => clock.writing(() => inTransaction(instance, fn)),
  };

  /** A read-only view of the store on a view's connection (Store.snapshot). */
  async function snapshot(): Promise<DuckDbStore> {
    const { conn, version: seen, exact } = await views.take();
    let ended: Promise<void> | null = null;
    const viewStatements: DuckDbStatements = {
      // Planning's lookups on this view's connection reuse the statements kept on it: one engine trip each, no preparation.
      all: async <T>(sql: string, params?: SqlParams) => (await (await runKept(conn, sql, params)).getRowObjectsJS()) as T[],
      run: () => Promise.reject(new Error('a snapshot is read-only')),
      transaction: () => Promise.reject(new Error('a snapshot is read-only')),
    };
    const lookup = <T>(key: string, compute: () => Promise<T>): Promise<T> => (exact ? clock.lookupAt(seen, key, compute) : compute());
    const view: DuckDbStore = {
      engine: 'duckdb',
      dataDir: opts.dataDir,
      readOnly: true,
      render: renderDuckDb,
      ...viewStatements,
      ...operations(
        viewStatements,
        (sql, params) => describeOn(conn, sql, params),
        () => undefined,
        lookup,
        () => view,
      ),
      copyToStream: (sql, params, format, o) => copier.copyToStream(sql, params, format, conn, o),
      copyToFile: (sql, params, format, file, o) => copier.copyToFileOn(conn, sql, params, format, file, o),
      snapshot: () => Promise.resolve(view),
      lookup,
      close: () => (ended ??= views.end(conn)),
    };
    return view;
  }

  const store: DuckDbStore = {
    engine: 'duckdb',
    ...(ledger ? { ledger } : {}),
    dataDir: opts.dataDir,
    readOnly,
    render: renderDuckDb,
    ...statements,
    lookup: (key, compute) => clock.lookup(key, compute),
    ...operations(
      statements,
      (sql, params) => describeOn(shared, sql, params),
      () => ledger,
      (key, compute) => clock.lookup(key, compute),
      () => store,
    ),
    copyToStream: (sql, params, format, o) => copier.copyToStream(sql, params, format, null, o),
    async copyToFile(sql, params, format, file, o) {
      const conn: DuckDBConnection = await instance.connect();
      try {
        return await copier.copyToFileOn(conn, sql, params, format, file, o);
      } finally {
        conn.closeSync();
      }
    },
    snapshot,
    async close() {
      await views.stop();
      // Charges the table could not take stay durable in the journal and are applied at the next opening.
      await ledger?.close().catch(() => undefined);
      await copier.stopAll();
      views.closeIdle();
      charges.close();
      shared.closeSync();
      instance.closeSync();
      await fifos.close();
      fs.rmSync(fifoDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return store;
}
