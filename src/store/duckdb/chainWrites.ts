/**
 * Ingestion's chain writes in DuckDB, each one transaction: a batch replaces
 * what the store held of its blocks and records coverage, so re-running a
 * range leaves no duplicates and a process killed at any moment leaves the
 * whole batch or none of it; a rollback removes what a reorg invalidated.
 */
import { ChainBreakError } from '../chainBreak.ts';
import { recordOrphans } from './chainLog.ts';
import { addCoverageMany, removeCoverage } from './coverageWrites.ts';
import type { ChainBatch, ChainOperations, ChainRollback } from '../types.ts';
import type { DuckDbStatements, Tx } from './types.ts';
import { scanLogFile } from './logFileScan.ts';
import { insertLogFileEvents } from './logFileEvents.ts';
import { insertLogFileTransfers } from './logFileTransfers.ts';
import { createParsedLogFiles, type ParsedLogFiles } from './parsedLogFiles.ts';

export function duckDbChainWrites(db: Pick<DuckDbStatements, 'transaction' | 'run'>): ChainOperations {
  const parsed = createParsedLogFiles(db);
  return {
    async publish(batch) {
      await db.transaction((tx) => writeBatch(tx, batch, parsed));
      // The commit read the files' tables: they are done with.
      await parsed.drop(batchFiles(batch));
    },
    rollback: (r) => db.transaction((tx) => rollback(tx, r)),
    // Parsed once into a table that both passes, and the commit's decoding, read.
    async scanLogFile(file, spec) {
      const source = await parsed.parse(file);
      return db.transaction((tx) => scanLogFile(tx, source, spec));
    },
  };
}

const batchFiles = (b: ChainBatch): string[] => [...(b.transfers ?? []).map((t) => t.file), ...(b.events ?? []).map((e) => e.file)];

async function writeBatch(tx: Tx, b: ChainBatch, parsed: ParsedLogFiles): Promise<void> {
  const range = { network: b.network, lo: b.lo, hi: b.hi };
  if (b.parentHash !== undefined) {
    const [prev] = await tx.all<{ hash: string }>(`SELECT hash FROM blocks WHERE network = $network AND number = $n`, { network: b.network, n: b.lo - 1 });
    if (prev && prev.hash !== b.parentHash) throw new ChainBreakError(b.network, b.lo);
  }
  // Headers first: the engine's own decoding reads the block times from them.
  if (b.blocks) {
    await tx.run(`DELETE FROM blocks WHERE network = $network AND number BETWEEN $lo AND $hi`, range);
    await tx.append(
      'blocks',
      b.blocks.map((blk) => [b.network, blk.number, blk.time, blk.hash, blk.parentHash]),
    );
  }
  for (const t of b.tables) {
    if (!t.fresh) await tx.run(`DELETE FROM ${t.table} WHERE network = $network AND block_number BETWEEN $lo AND $hi`, range);
    if (t.rows.length) await tx.append(t.table, t.rows);
  }
  for (const transfers of b.transfers ?? []) await insertLogFileTransfers(tx, b.network, b.lo, b.hi, transfers, parsed.source(transfers.file));
  for (const events of b.events ?? []) await insertLogFileEvents(tx, b.network, b.lo, b.hi, events, parsed.source(events.file));
  if (b.pools) {
    await tx.run(`DELETE FROM pools WHERE network = $network AND created_block BETWEEN $lo AND $hi`, range);
    if (b.pools.length) await tx.append('pools', b.pools);
  }
  if (b.tokenCache?.length) await cacheTokens(tx, b.network, b.tokenCache);
  await addCoverageMany(tx, b.covers, b.network, b.lo, b.hi);
  for (const dataset of b.uncovers) await removeCoverage(tx, dataset, b.network, b.lo, b.hi);
}

async function cacheTokens(tx: Tx, network: string, tokens: NonNullable<ChainBatch['tokenCache']>): Promise<void> {
  // Addresses are checked hex, so they may be spelled into the statement.
  const list = tokens
    .map((t) => {
      if (!/^0x[0-9a-f]{40}$/.test(t.address)) throw new Error(`bad token address ${t.address}`);
      return `'${t.address}'`;
    })
    .join(', ');
  await tx.run(`DELETE FROM token_cache WHERE network = $network AND address IN (${list})`, { network });
  await tx.append(
    'token_cache',
    tokens.map((t) => [network, t.address, t.symbol, t.decimals]),
  );
}

async function rollback(tx: Tx, r: ChainRollback): Promise<void> {
  const p = { network: r.network, lo: r.ancestor + 1, hi: r.through };
  // The chain log: what goes is kept, so that a stream's cursor on one of these blocks finds its way back (src/store/chainLog.ts).
  await recordOrphans(tx, r.network, r.ancestor);
  for (const d of r.datasets) {
    await tx.run(`DELETE FROM ${d.table} WHERE network = $network AND block_number BETWEEN $lo AND $hi`, p);
    await removeCoverage(tx, d.id, r.network, p.lo, p.hi);
  }
  for (const dataset of r.coverageOnly) await removeCoverage(tx, dataset, r.network, p.lo, p.hi);
  await tx.run(`DELETE FROM blocks WHERE network = $network AND number BETWEEN $lo AND $hi`, p);
  if (r.pools) await tx.run(`DELETE FROM pools WHERE network = $network AND created_block BETWEEN $lo AND $hi`, p);
}
