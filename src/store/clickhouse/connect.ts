/**
 * One `@clickhouse/client` for either kind of ClickHouse: a server reached
 * over HTTP, or the engine embedded in this process through chDB's
 * connection adapter. Everything above this file runs the same client code
 * on both. chDB (a 550 MB native library) is loaded only when a `chdb:`
 * store is opened, so the DuckDB default never pays for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ClickHouseClient, createClient } from '@clickhouse/client';
import { createWriteClock, type WriteClock } from '../writeClock.ts';
import type { StoreTarget } from '../target.ts';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export type ClickHouseTarget = Exclude<StoreTarget, { engine: 'duckdb' }>;

/** Settings every statement runs with: numbers as JSON numbers, exact types as text, UTC. */
export const SESSION_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  session_timezone: 'UTC',
} as const;

/**
 * chDB's data directory is locked by the process that opens it, so every
 * write to it is one of this process's statements. Counting them (per
 * directory: the stores of several databases of one directory share it)
 * tells when a lookup read before still holds, as on DuckDB
 * (../lookupCache.ts). A ClickHouse server is written by other processes
 * too, and has no such clock.
 */
export interface LocalEngine {
  /** Counts every statement of `client` that is not a read. */
  readonly writes: WriteClock;
  /** A client on the same connection whose writes are not counted: the usage ledger's, which no lookup reads. */
  readonly uncounted: ClickHouseClient;
}

export interface ClickHouseConnection {
  readonly client: ClickHouseClient;
  /** chDB's write clock and uncounted client; null for a server. */
  readonly local: LocalEngine | null;
}

export async function connectClickHouse(target: ClickHouseTarget): Promise<ClickHouseClient> {
  return (await openClickHouse(target)).client;
}

export async function openClickHouse(target: ClickHouseTarget): Promise<ClickHouseConnection> {
  // Loaded here, not at the top: a server on the DuckDB default would carry the client's modules for nothing.
  const { createClient } = await import('@clickhouse/client');
  if (target.engine === 'clickhouse') {
    const client = createClient({
      url: target.url,
      username: target.username,
      password: target.password,
      // Statements name their tables with the database; the session's default stays the server's.
      clickhouse_settings: { ...SESSION_SETTINGS },
      // A body that stops being read must hold no socket forever.
      request_timeout: 3_600_000,
    });
    return { client, local: null };
  }
  fs.mkdirSync(target.dir, { recursive: true });
  let chdb: typeof import('chdb/connection');
  try {
    chdb = await import('chdb/connection');
  } catch {
    throw new Error('the chdb package is not installed: run `npm install chdb` (about 550 MB) to use --store chdb:DIR');
  }
  // chdb types its connection against @clickhouse/client-common, which the client re-declares;
  // under exactOptionalPropertyTypes the two declarations differ only in optional settings.
  const connection = chdb.createChdbConnection({ path: target.dir }) as unknown as ClientConnection;
  const writes = writeClockOf(target.dir);
  const client = createClient({ connection: countingWrites(connection, writes), clickhouse_settings: { ...SESSION_SETTINGS } });
  const uncounted = createClient({ connection, clickhouse_settings: { ...SESSION_SETTINGS } });
  return { client, local: { writes, uncounted } };
}

const clocks = new Map<string, WriteClock>();

function writeClockOf(dir: string): WriteClock {
  const key = path.resolve(dir);
  let clock = clocks.get(key);
  if (!clock) {
    clock = createWriteClock(() => undefined);
    clocks.set(key, clock);
  }
  return clock;
}

/** Statements that cannot write; anything else is counted as a write, whatever it does. */
const READ_ONLY = /^\s*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

/** The connection with its writes counted on `clock`, from their start to their end. */
function countingWrites(connection: ClientConnection, clock: WriteClock): ClientConnection {
  const counted =
    <P extends { readonly query: string }, R>(run: (p: P) => Promise<R>) =>
    (p: P) =>
      READ_ONLY.test(p.query) ? run(p) : clock.writing(() => run(p));
  return {
    ping: (p) => connection.ping(p),
    query: counted((p) => connection.query(p)),
    exec: counted((p) => connection.exec(p)),
    command: counted((p) => connection.command(p)),
    insert: (p) => clock.writing(() => connection.insert(p)),
    close: () => connection.close(),
  };
}
