/**
 * Each batch's log file parsed once. The scan before the commit and the
 * engine's decoding at the commit both read the whole file; JSON parsing was
 * a third of what the engine spent on a batch of one-word events. So the scan
 * parses the file into a table of an in-memory catalog of the instance (a
 * temporary table would live on one connection, and every transaction has
 * its own), and the commit's decoding reads that table instead of the file.
 *
 * The table is the file's: it is dropped after the commit that read it, and
 * a table whose file is gone (a batch fetched but never committed, whose file
 * ingestion removed) is dropped at the next scan or commit. A file never
 * scanned is read from the file itself, as before.
 */
import fs from 'node:fs';
import type { DuckDbStatements } from './types.ts';
import { logFileRelation, type LogSource } from './logFileTransfers.ts';

/** The in-memory catalog holding parsed log files: never written to the store's file, never checkpointed. */
const CATALOG = 'chainq_log_files';

export interface ParsedLogFiles {
  /** Parses `file` into its table (its own transaction: the table is known once it is there) and returns the table as a source. */
  parse(file: string): Promise<LogSource>;
  /** The logs of `file`: its table when it was parsed, else the file. */
  source(file: string): LogSource;
  /** Drops the tables of `files` and of every file that is gone; runs outside any transaction. */
  drop(files: readonly string[]): Promise<void>;
}

export function createParsedLogFiles(db: Pick<DuckDbStatements, 'run' | 'transaction'>): ParsedLogFiles {
  const tables = new Map<string, string>();
  let next = 0;
  let attached: Promise<void> | null = null;
  const attach = () => {
    attached ??= db.run(`ATTACH IF NOT EXISTS ':memory:' AS ${CATALOG}`);
    return attached;
  };
  const dropTables = async (files: Iterable<string>) => {
    for (const file of files) {
      const table = tables.get(file);
      if (table === undefined) continue;
      tables.delete(file);
      await db.run(`DROP TABLE IF EXISTS ${table}`);
    }
  };
  const gone = () => [...tables.keys()].filter((f) => !fs.existsSync(f));
  return {
    async parse(file) {
      await attach();
      await dropTables(gone());
      const table = `${CATALOG}.log_file_${++next}`;
      await db.transaction((tx) => tx.run(`CREATE TABLE ${table} AS SELECT * FROM ${logFileRelation('file')}`, { file }));
      const earlier = tables.get(file);
      tables.set(file, table);
      if (earlier !== undefined) await db.run(`DROP TABLE IF EXISTS ${earlier}`);
      return { relation: table, params: {} };
    },
    source(file) {
      const table = tables.get(file);
      return table === undefined ? { relation: logFileRelation('file'), params: { file } } : { relation: table, params: {} };
    },
    drop: (files) => dropTables(new Set([...files, ...gone()])),
  };
}
