/**
 * Where a store lives, as an operator writes it on the command line
 * (`--store`, README "Storage engines"):
 * - `duckdb:DIR` — the embedded DuckDB store in DIR (the default, `--data DIR`);
 * - `chdb:DIR` — the ClickHouse engine embedded in this process (chDB), data in DIR;
 * - `clickhouse://user:pass@host:8123/db` (or `clickhouses://` for TLS) — a ClickHouse server or cluster.
 */
import path from 'node:path';
import { StoreError } from '../errors/chainqError.ts';

export type StoreTarget =
  | { readonly engine: 'duckdb'; readonly dir: string }
  | { readonly engine: 'chdb'; readonly dir: string }
  | {
      readonly engine: 'clickhouse';
      /** The HTTP(S) endpoint, without credentials or database. */
      readonly url: string;
      readonly username: string;
      readonly password: string;
      readonly database: string;
    };

export class StoreTargetError extends StoreError {
  constructor(text: string, why: string) {
    super(`--store ${JSON.stringify(redactTarget(text))}: ${why}; expected duckdb:DIR, chdb:DIR or clickhouse://user:password@host:8123/database`);
  }
}

const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseStoreTarget(text: string): StoreTarget {
  const colon = text.indexOf(':');
  const scheme = colon > 0 ? text.slice(0, colon).toLowerCase() : '';
  if (scheme === 'duckdb' || scheme === 'chdb') {
    const dir = text.slice(colon + 1);
    if (dir === '') throw new StoreTargetError(text, 'no directory');
    return { engine: scheme, dir: path.resolve(dir) };
  }
  if (scheme === 'clickhouse' || scheme === 'clickhouses') {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new StoreTargetError(text, 'not a URL');
    }
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'default';
    if (!DATABASE_NAME.test(database)) throw new StoreTargetError(text, `database name '${database}' must be letters, digits and underscores`);
    const protocol = scheme === 'clickhouses' ? 'https' : 'http';
    const port = url.port || (protocol === 'https' ? '8443' : '8123');
    return {
      engine: 'clickhouse',
      url: `${protocol}://${url.hostname}:${port}`,
      username: decodeURIComponent(url.username) || 'default',
      password: decodeURIComponent(url.password),
      database,
    };
  }
  throw new StoreTargetError(text, 'unknown engine');
}

/** The target as text with any password hidden, for logs and messages. */
export function redactTarget(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

export function describeTarget(t: StoreTarget): string {
  if (t.engine === 'clickhouse') return `clickhouse ${t.url}/${t.database}`;
  return `${t.engine} ${t.dir}`;
}
