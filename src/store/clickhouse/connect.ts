/**
 * One `@clickhouse/client` for either kind of ClickHouse: a server reached
 * over HTTP, or the engine embedded in this process through chDB's
 * connection adapter. Everything above this file runs the same client code
 * on both. chDB (a 550 MB native library) is loaded only when a `chdb:`
 * store is opened, so the DuckDB default never pays for it.
 */
import fs from 'node:fs';
import type { ClickHouseClient, createClient } from '@clickhouse/client';
import type { StoreTarget } from '../target.ts';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export type ClickHouseTarget = Exclude<StoreTarget, { engine: 'duckdb' }>;

/** Settings every statement runs with: numbers as JSON numbers, exact types as text, UTC. */
export const SESSION_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  session_timezone: 'UTC',
} as const;

export async function connectClickHouse(target: ClickHouseTarget): Promise<ClickHouseClient> {
  // Loaded here, not at the top: a server on the DuckDB default would carry the client's modules for nothing.
  const { createClient } = await import('@clickhouse/client');
  if (target.engine === 'clickhouse') {
    return createClient({
      url: target.url,
      username: target.username,
      password: target.password,
      // Statements name their tables with the database; the session's default stays the server's.
      clickhouse_settings: { ...SESSION_SETTINGS },
      // A body that stops being read must hold no socket forever.
      request_timeout: 3_600_000,
    });
  }
  fs.mkdirSync(target.dir, { recursive: true });
  let chdb: typeof import('chdb/connection');
  try {
    chdb = await import('chdb/connection');
  } catch {
    throw new Error('the chdb package is not installed: run `npm install chdb` (about 550 MB) to use --store chdb:DIR');
  }
  return createClient({
    // chdb types its connection against @clickhouse/client-common, which the client re-declares;
    // under exactOptionalPropertyTypes the two declarations differ only in optional settings.
    connection: chdb.createChdbConnection({ path: target.dir }) as unknown as ClientConnection,
    clickhouse_settings: { ...SESSION_SETTINGS },
  });
}
