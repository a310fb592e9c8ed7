/**
 * Reference data in the store: the token registry, address labels and dex
 * pools. The shipped seed lives in reference/seed/; operators add to it from
 * CSV with `chainq tokens import` and `chainq labels import`; rows replace
 * earlier rows with the same key (the store's reference operations).
 */
import path from 'node:path';
import { PACKAGE_ROOT } from '../internal/packageRoot.ts';
import type { Store } from '../store/types.ts';

export const SEED_DIR = path.join(PACKAGE_ROOT, 'src', 'reference', 'seed');

/** Imports a token CSV: symbol,name,aliases(|-separated),network,address,decimals. Returns rows imported. */
export function importTokens(store: Store, file: string): Promise<number> {
  return store.reference.importTokens(file);
}

/** Imports a label CSV: address,label,category,network (network empty = every EVM network). */
export function importLabels(store: Store, file: string): Promise<number> {
  return store.reference.importLabels(file);
}

/** Loads the shipped seed into an empty registry. */
export async function loadSeed(store: Store): Promise<void> {
  if ((await store.reference.count('tokens')) === 0) await importTokens(store, path.join(SEED_DIR, 'tokens.csv'));
  if ((await store.reference.count('labels')) === 0) await importLabels(store, path.join(SEED_DIR, 'labels.csv'));
}
