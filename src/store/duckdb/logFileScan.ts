/**
 * What ingestion must know of a batch's log file before its commit, read by
 * DuckDB in one pass over the file: each block's hash and log indices (checked
 * against the headers), what the engine's own transfer decoding needs (token
 * contracts, amounts only JS computes exactly), and, in a second pass only
 * when there are some, the logs decoded in JS.
 */
import type { LogFileScan, LogFileScanSpec, LogRecord, SqlParams, TransferScan } from '../types.ts';
import type { Tx } from './types.ts';
import { eventCondition } from './logFileEvents.ts';
import { transferScan, type LogSource } from './logFileTransfers.ts';

type WideRow = { block_number: bigint; log_index: bigint; data: string };
type BlockScan = Record<string, unknown> & { n: bigint; hash: string; hashes: bigint; removed: boolean; js: bigint; indices: string };

const listOf = <T>(v: unknown): T[] => (Array.isArray(v) ? v : []);

/** Sums one selector's per-block aggregates up (named `s<i>.<name>` in the scan). */
function transfersOf(blocks: readonly BlockScan[], i: number): TransferScan {
  let events = 0;
  const tokens = new Set<string>();
  const wide: { block_number: number; log_index: number; value: string }[] = [];
  for (const b of blocks) {
    events += Number(b[`s${i}.events`] ?? 0);
    for (const t of listOf<string>(b[`s${i}.tokens`])) tokens.add(t);
    for (const w of listOf<WideRow>(b[`s${i}.wide`])) wide.push({ block_number: Number(w.block_number), log_index: Number(w.log_index), value: BigInt(w.data).toString() });
  }
  return { events, tokens: [...tokens], wide };
}

export async function scanLogFile(tx: Tx, source: LogSource, spec: LogFileScanSpec): Promise<LogFileScan> {
  const params: SqlParams = { ...source.params };
  const aggregates: string[] = [];
  spec.transferSelectors.forEach((selector, i) => {
    params[`s${i}`] = selector;
    for (const [name, sql] of Object.entries(transferScan(`s${i}`))) aggregates.push(`${sql} AS "s${i}.${name}"`);
  });
  const events = spec.events ?? [];
  events.forEach((e, i) => {
    const where = eventCondition(e, `e${i}`);
    Object.assign(params, where.params);
    aggregates.push(`count(*) FILTER (WHERE ${where.sql}) AS "e${i}.events"`);
  });
  // The JS decoders' logs are counted in the same pass, so that the second pass runs only when there are some.
  const jsTopics = [...new Set(spec.jsTopics)];
  jsTopics.forEach((t, i) => {
    params[`t${i}`] = t;
  });
  const jsMatch = jsTopics.length === 0 ? 'false' : `topics[1] IN (${jsTopics.map((_, i) => `$t${i}`).join(', ')})`;
  const blocks = await tx.all<BlockScan>(
    `SELECT blockNumber::BIGINT AS n, lower(min(blockHash)) AS hash, count(DISTINCT lower(blockHash)) AS hashes, string_agg(logIndex::BIGINT::VARCHAR, ',') AS indices,
            bool_or(coalesce(removed, false)) AS removed, count(*) FILTER (WHERE ${jsMatch}) AS js${aggregates.map((a) => `, ${a}`).join('')}
     FROM ${source.relation} GROUP BY 1`,
    params,
  );
  const blockHashes = new Map<number, string>();
  const logIndices = new Map<number, number[]>();
  let conflict: string | null = null;
  for (const b of blocks) {
    const n = Number(b.n);
    blockHashes.set(n, b.hash);
    // One text per block: a list would come back as one JS value per log.
    logIndices.set(n, b.indices.split(',').map(Number));
    if (b.removed) conflict ??= `the node marks a log of block ${n} removed`;
    if (Number(b.hashes) > 1) conflict ??= `the logs of block ${n} name two versions of it`;
  }
  const transfers = new Map(spec.transferSelectors.map((selector, i) => [selector, transfersOf(blocks, i)]));
  const jsLogs = blocks.some((b) => Number(b.js) > 0) ? await jsLogsOf(tx, source, jsTopics) : [];
  const eventRows = new Map(events.map((e, i) => [e.table, blocks.reduce((n, b) => n + Number(b[`e${i}.events`] ?? 0), 0)]));
  return { blockHashes, logIndices, conflict, jsLogs, transfers, events: eventRows };
}

async function jsLogsOf(tx: Tx, source: LogSource, topic0: readonly string[]): Promise<LogRecord[]> {
  const params = { ...source.params, ...Object.fromEntries(topic0.map((t, i) => [`t${i}`, t])) };
  return tx.all<LogRecord>(
    `SELECT address, topics, data, blockNumber, blockHash, transactionHash, transactionIndex, logIndex
     FROM ${source.relation} WHERE topics[1] IN (${topic0.map((_, i) => `$t${i}`).join(', ')})
     ORDER BY blockNumber::BIGINT, logIndex::BIGINT`,
    params,
  );
}
