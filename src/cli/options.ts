/** Options shared by every command, and opening the store they point at. */
import path from 'node:path';
import { createStore, type Store } from '../store/createStore.ts';

export const DEFAULT_DATA_DIR = process.env.CHAINQ_DATA ?? './data';

export interface DataOption {
  data: string;
}

export function openStore(opts: DataOption & { memoryLimit?: string; readOnly?: boolean; threads?: number }): Promise<Store> {
  return createStore({
    dataDir: path.resolve(opts.data),
    ...(opts.threads ? { threads: opts.threads } : {}),
    ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
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
