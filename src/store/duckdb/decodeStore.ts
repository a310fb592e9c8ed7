/** The in-memory DuckDB store verification decodes a node's rows into (DecodeStore, ../types.ts). */
import type { DecodeStore } from '../types.ts';
import { createDuckDbStore } from './createDuckDbStore.ts';
import { ident } from './render.ts';

/** An in-memory DuckDB store for a node's decoded rows, on one engine thread (verification runs beside the store it checks). */
export async function createDecodeStore(): Promise<DecodeStore> {
  const store = await createDuckDbStore({ dataDir: null, threads: 1 });
  return {
    ...store,
    // The store holds nothing else of the network, so nothing is kept; a
    // rollback of every EVM table would cost dozens of statements per batch instead.
    clearDecoded: (tables) =>
      store.transaction(async (tx) => {
        for (const name of new Set(tables.map((t) => t.name))) await tx.run(`DELETE FROM ${ident(name)}`);
        await tx.run('DELETE FROM blocks');
        await tx.run('DELETE FROM coverage');
      }),
    replaceDecodedRows: (table, rows) =>
      store.transaction(async (tx) => {
        await tx.run(`DELETE FROM ${ident(table.name)}`);
        if (rows.length) await tx.append(table.name, rows);
      }),
  };
}
