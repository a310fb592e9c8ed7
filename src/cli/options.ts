/** Options shared by every command, and opening the store they point at. */
import fs from 'node:fs';
import path from 'node:path';
import { parseTime } from '../query/time.ts';
import { openStoreAt } from '../store/openStore.ts';
import type { Store } from '../store/types.ts';
import type { ExportLaneLimits } from '../store/exportLanes.ts';
import { parseStoreTarget, type StoreTarget } from '../store/target.ts';

export const DEFAULT_DATA_DIR = process.env.CHAINQ_DATA ?? './data';

export const DATA_HELP = "data directory: the DuckDB store, and the server's local files (operator socket, plans, link files)";
export const STORE_HELP = 'where the data lives: duckdb:DIR (default: --data), chdb:DIR (ClickHouse in process) or clickhouse://user:password@host:8123/database (or CHAINQ_STORE)';

export interface DataOption {
  data: string;
  /** `--store`; for `duckdb:DIR` the command's `data` is DIR (see `normalizeStoreOption`). */
  store?: string | undefined;
}

/** The store a command's options point at: `--store`, else CHAINQ_STORE, else DuckDB in `--data`. */
export function storeTargetOf(opts: DataOption): StoreTarget {
  const text = opts.store ?? process.env.CHAINQ_STORE;
  return text ? parseStoreTarget(text) : { engine: 'duckdb', dir: path.resolve(opts.data) };
}

/**
 * Run before every command: `--store duckdb:DIR` or `chdb:DIR` means
 * `--data DIR`, so that the operator socket and local files follow the store
 * (and a second command finds the server that holds an embedded store), and
 * a bad `--store` fails before anything starts.
 */
export function normalizeStoreOption(opts: DataOption, set: (name: 'data', value: string) => void): void {
  if (opts.data === undefined) return;
  const target = storeTargetOf(opts);
  if (target.engine !== 'clickhouse') set('data', target.dir);
}

export async function openStore(opts: DataOption & { memoryLimit?: string; streamBufferBytes?: number; readOnly?: boolean; threads?: number; exportLanes?: ExportLaneLimits }): Promise<Store> {
  const target = storeTargetOf(opts);
  return openStoreAt(target.engine === 'duckdb' ? { engine: 'duckdb', dir: path.resolve(opts.data) } : target, opts);
}

/** Opens the store, runs `fn`, and closes the store whatever happens. */
export async function withStore<T>(opts: DataOption & { memoryLimit?: string; readOnly?: boolean; threads?: number }, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(opts);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`expected a positive number, got '${value}'`);
  return n;
}

export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`expected a number of 0 or more, got '${value}'`);
  return n;
}

export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`expected a port number, got '${value}'`);
  return n;
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive integer, got '${value}'`);
  return n;
}

/** The options that were given: commander leaves the others undefined, which optional fields must not hold. */
export function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * A node URL option that may name several nodes of one chain: repeat the
 * option, or separate URLs with commas (a comma inside a URL must be written
 * %2C). Commander hands each occurrence here with what came before.
 */
export function nodeUrls(value: string, previous: string[] | undefined): string[] {
  const out = [...(previous ?? [])];
  for (const item of value.split(',')) {
    const url = item.trim();
    if (!url) continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`not a URL: '${url.replace(/\/\/[^@/]*@/, '//***@')}'`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`expected an http or https URL, got '${parsed.protocol}'`);
    out.push(url);
  }
  return out;
}

/** Several node URLs as a job description holds them: one URL stays a string, as before multi-node support. */
export const oneOrMany = (urls: readonly string[]): string | string[] => (urls.length === 1 ? (urls[0] ?? '') : [...urls]);

export const NODES_HELP =
  'repeat the option or separate URLs with commas to spread requests over several nodes of the same chain (by measured answer time; a failing node is left out for a doubling wait, then probed and taken back)';

/** A `--from`/`--block-start` value: a block number. */
export function blockNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`expected a block number, got '${value}'`);
  return n;
}

/** A `--since`/`--until` value, in epoch milliseconds. */
export function timeOption(value: string): number {
  const ms = parseTime(value);
  if (ms === null) throw new Error(`not a time: '${value}' (use YYYY-MM-DD, ISO 8601 or Unix seconds)`);
  return ms;
}

/** Where the operator's contract addresses are read from: --protocols, else <data>/protocols.json when present. */
export function protocolsFile(opts: { protocols?: string | undefined; data: string }): string | undefined {
  if (opts.protocols) return path.resolve(opts.protocols);
  const beside = path.resolve(opts.data, 'protocols.json');
  return fs.existsSync(beside) ? beside : undefined;
}
