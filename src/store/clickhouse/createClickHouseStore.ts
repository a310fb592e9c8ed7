/**
 * The store on ClickHouse (docs/storage.md): a server or cluster over HTTP,
 * or chDB in process, through the same `@clickhouse/client` code. Results
 * meant for clients leave the engine encoded (`FORMAT …`) and stream to the
 * socket; statements name their tables with the store's database and bind
 * every value as a `{name:Type}` parameter.
 *
 * ClickHouse has no multi-statement transactions. Reads need none: writers
 * publish coverage after their rows, and a query never reads past coverage.
 * Writes that DuckDB groups in a transaction have their own ClickHouse form
 * (one INSERT per state change, docs/storage.md "Writes without
 * transactions"): the contract's writes are named operations, so there is no
 * raw transaction to refuse.
 */
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Format } from '../../catalog/types.ts';
import { Semaphore } from '../../utils/semaphore.ts';
import type { CopyStream, SqlParams, Store } from '../types.ts';
import type { BoundQuery } from '../query.ts';
import { openClickHouse, type ClickHouseTarget } from './connect.ts';
import { openChdbLedger } from './chargeJournal.ts';
import { clickHouseExport } from './format.ts';
import { ident, renderClickHouse } from './render.ts';
import { CLICKHOUSE_SCHEMA_VERSION, clickHouseSchemaDdl, clickHouseTableNames } from './schema.ts';
import { createGroupedLedger, type ChargeLedger } from '../ledger.ts';
import { writeThrottled } from '../exportThrottle.ts';
import { appendCharges } from './metering.ts';
import { holdScratch } from './scratch.ts';
import { clickHouseKeys } from './keys.ts';
import { clickHouseLabelNamespaces } from './labelNamespaces.ts';
import { clickHouseUsage } from './usage.ts';
import { clickHouseChainWrites } from './chainWrites.ts';
import { clickHouseReference } from './reference.ts';
import { clickHouseExports } from './exports.ts';
import { clickHouseVenues } from './venues.ts';
import { clickHouseChainReads } from './chainReads.ts';
import { clickHouseCoverage, type Lookup } from './coverageReads.ts';
import { clickHouseRegistry } from './registry.ts';
import { clickHouseCustomDatasets } from './customDatasets.ts';
import { clickHouseMaintenance } from './maintenance.ts';
import { clickHouseVerification } from './verification.ts';
import { clickHouseTime } from './time.ts';
import type { ClickHouseStore, ClickHouseValue } from './types.ts';

export type { ClickHouseStore } from './types.ts';

export interface ClickHouseStoreOptions {
  readonly target: ClickHouseTarget;
  readonly readOnly?: boolean;
  /** Database for `chdb:` stores (a ClickHouse URL names its own). */
  readonly database?: string;
  /** Creates tables `ON CLUSTER` with replicated engines (docs/deployment.md). */
  readonly cluster?: string | null;
  readonly maxConcurrentExports?: number;
}

const DEFAULT_DATABASE = 'chainq';

/** The most bytes handed on at once; see `slices`. */
const SLICE_BYTES = 64 * 1024;

/**
 * The engine's chunks in slices of at most SLICE_BYTES (views, not copies).
 * A server's HTTP body arrives in small chunks already; chDB hands over a
 * whole result as one, and a single chunk of megabytes would pass every
 * stream buffer at once: the response would count as delivered (and be
 * charged) before the client had read it. Sliced, the socket's
 * backpressure holds the export back as it does with a server.
 */
async function* slices(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) yield chunk.subarray(at, at + SLICE_BYTES);
  }
}

/** Text of a JS value as ClickHouse reads it in JSON input: exact integers as text, times as UTC. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return clickHouseTime(v.getTime());
  return v;
}

export async function createClickHouseStore(opts: ClickHouseStoreOptions): Promise<ClickHouseStore> {
  const target = opts.target;
  const database = target.engine === 'clickhouse' ? target.database : (opts.database ?? DEFAULT_DATABASE);
  const { client, local } = await openClickHouse(target);
  const releaseScratch = holdScratch();
  const readOnly = opts.readOnly ?? false;
  const table = (name: string) => `${ident(database)}.${ident(name)}`;

  const query = async <T>(sql: string, params: Record<string, ClickHouseValue> = {}): Promise<T[]> => {
    const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  };
  const command = async (sql: string, params: Record<string, ClickHouseValue> = {}): Promise<void> => {
    await client.command({ query: sql, query_params: params });
  };

  let journal: ChargeLedger | null = null;
  try {
    await ensureSchema(query, command, database, readOnly ? null : { cluster: opts.cluster ?? null });
    // chDB's directory is this process's alone: its charges take the journal's durable line (./chargeJournal.ts).
    if (local && !readOnly && target.engine === 'chdb') journal = await openChdbLedger(target.dir, database, local.uncounted);
  } catch (e) {
    await client.close();
    await releaseScratch();
    throw e;
  }

  const render = (bound: BoundQuery, format: Format) => renderClickHouse(bound, format, { database });
  // On chDB, lookups are kept until this process writes again (../lookupCache.ts); the stores of a directory's databases share its clock.
  const lookup: Lookup | null = local ? (key, compute) => local.writes.lookup(`${database}\0${key}`, compute) : null;

  const copyToStream = clickHouseCopier(client, new Semaphore(opts.maxConcurrentExports ?? 8));

  const store: ClickHouseStore = {
    engine: 'clickhouse',
    dataDir: target.engine === 'chdb' ? target.dir : null,
    readOnly,
    database,
    cluster: opts.cluster ?? null,
    client,
    table,
    query,
    command,
    render,
    async insert(name, rows) {
      if (rows.length === 0) return;
      await client.insert({
        table: `${database}.${name}`,
        values: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonValue(v)]))),
        format: 'JSONEachRow',
      });
    },
    // On a server, one INSERT per group of charges: ClickHouse applies it whole.
    ledger: journal ?? createGroupedLedger((charges) => appendCharges(store, charges)),
    keys: clickHouseKeys(() => store),
    usage: clickHouseUsage(() => store),
    chain: clickHouseChainWrites(() => store),
    labelNamespaces: clickHouseLabelNamespaces(() => store),
    reference: clickHouseReference(() => store),
    exports: clickHouseExports(() => store),
    venues: clickHouseVenues(() => store),
    chainReads: clickHouseChainReads(() => store),
    coverage: clickHouseCoverage(() => store, lookup ?? undefined),
    registry: clickHouseRegistry(() => store, lookup ?? undefined),
    verification: clickHouseVerification(() => store),
    customDatasets: clickHouseCustomDatasets(() => store),
    maintenance: clickHouseMaintenance(() => store),
    ...(lookup ? { lookup } : {}),
    copyToStream,
    async copyToFile(sql, params, format, file, o) {
      // A throttled export gives way before its query starts: chDB runs one query at a time and
      // hands its result over whole, so once begun it cannot be paused (docs/api.md, "Exports").
      // A ClickHouse server streams its answer: there each piece waits for its turn too, and a
      // piece not taken holds the server's query, as on DuckDB.
      if (o?.throttle) await o.throttle.turn();
      if (o?.throttle && target.engine === 'clickhouse') return writeThrottled(await copyToStream(sql, params, format), file, o.throttle);
      const exp = await copyToStream(sql, params, format);
      await pipeline(exp.stream, fs.createWriteStream(file));
      return exp.done;
    },
    // Coverage is published after the rows it covers and a query never reads
    // past coverage, so reads need no pinned view: the store is its own snapshot.
    // On a server, each snapshot keeps its own registry lookups (ttlLookup keys its cache by the store object it is given);
    // on chDB they share the store's, which is exact.
    snapshot: () => {
      const snap: ClickHouseStore = { ...store, registry: clickHouseRegistry(() => snap, lookup ?? undefined), close: () => Promise.resolve() };
      return Promise.resolve(snap);
    },
    async close() {
      // Charges the table could not take stay durable in the journal and are applied at the next opening.
      await journal?.close().catch(() => undefined);
      await client.close();
      await releaseScratch();
    },
  };
  return store;
}

/**
 * Creates the tables when some are missing (writable stores) and checks the
 * schema version is readable. Every server and command opens the store, so
 * an open is one read, not a DDL statement per table (each ON CLUSTER
 * statement goes through Keeper).
 */
async function ensureSchema(
  query: <T>(sql: string, params?: Record<string, ClickHouseValue>) => Promise<T[]>,
  command: (sql: string, params?: Record<string, ClickHouseValue>) => Promise<void>,
  database: string,
  writable: { readonly cluster: string | null } | null,
): Promise<void> {
  const table = (name: string) => `${ident(database)}.${ident(name)}`;
  if (!writable) {
    await query(`SELECT version FROM ${table('schema_version')}`);
    return;
  }
  const ddlOptions = { database, cluster: writable.cluster };
  const existing = new Set((await query<{ name: string }>('SELECT name FROM system.tables WHERE database = {database:String}', { database })).map((r) => r.name));
  if (!clickHouseTableNames(ddlOptions).every((t) => existing.has(t))) {
    for (const ddl of clickHouseSchemaDdl(ddlOptions)) await command(ddl);
  }
  const v = await query<{ version: number }>(`SELECT version FROM ${table('schema_version')}`);
  if (v.length === 0) await command(`INSERT INTO ${table('schema_version')} VALUES ({v:Int32})`, { v: CLICKHOUSE_SCHEMA_VERSION });
}

/** Streams a query's encoded result (`FORMAT …`), at most as many at once as `exports` lets through. */
function clickHouseCopier(client: ClickHouseClient, exports: Semaphore): (sql: string, params: SqlParams, format: Format) => Promise<CopyStream> {
  return async function copyToStream(sql: string, params: SqlParams, format: Format): Promise<CopyStream> {
    const release = await exports.acquire();
    const abort = new AbortController();
    const out = clickHouseExport(format);
    const stream = new PassThrough({ highWaterMark: 256 * 1024 });
    stream.on('error', () => undefined);
    let released = false;
    const finish = () => {
      if (released) return;
      released = true;
      release();
    };
    stream.on('close', finish);
    let rows = 0;
    const done = (async () => {
      const result = await client.exec({
        query: `${sql} FORMAT ${out.format}`,
        query_params: params,
        clickhouse_settings: { ...out.settings },
        abort_signal: abort.signal,
      });
      rows = Number(result.summary?.result_rows ?? 0);
      // The body ends only once the engine's stream has ended whole.
      await pipeline(result.stream, slices, stream);
      return rows;
    })();
    done.catch((e: unknown) => {
      stream.destroy(e instanceof Error ? e : new Error(String(e)));
      finish();
    });
    return {
      stream,
      done,
      cancel() {
        abort.abort();
        stream.destroy();
      },
    };
  };
}

/** The ClickHouse store behind a `Store` (its snapshots included), or null for another engine. */
export function clickHouseOf(store: Store): ClickHouseStore | null {
  return store.engine === 'clickhouse' && 'client' in store ? (store as ClickHouseStore) : null;
}
