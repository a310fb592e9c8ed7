/**
 * A batch's logs as the engine reads them: the eth_getLogs answers, streamed
 * unparsed into one JSON array file that DuckDB's `read_json` reads (in its
 * own threads, faster than V8, with no JS object per log).
 *
 * When the batch is fetched, `scanLogFile` reads what must be known before
 * the commit: each block's hash (checked against the headers), what engine
 * decoders need (token contracts, values only JS computes exactly), and the
 * logs JS decoders take, as objects. At commit, engine decoders read the
 * file again in their INSERT … SELECT (writeBatch.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store, Tx } from '../../store/types.ts';
import type { ArraySink } from '../rpc/createRpc.ts';
import type { LogSink, RpcLog } from '../rpc/getLogs.ts';
import type { EngineBatch, EngineDecoder, JsDecoder } from './types.ts';
import { errnoCode } from '../../utils/errorText.ts';

/** The log fields read from the file; every one is kept as the node's text. */
const LOG_COLUMNS = `{address: 'VARCHAR', topics: 'VARCHAR[]', data: 'VARCHAR', blockNumber: 'VARCHAR', blockHash: 'VARCHAR', transactionHash: 'VARCHAR', transactionIndex: 'VARCHAR', logIndex: 'VARCHAR', removed: 'BOOLEAN'}`;

/** The file bound to `$<param>` as a relation of logs (columns as the node names them). */
export const logFileRelation = (param: string) => `read_json($${param}, format = 'array', columns = ${LOG_COLUMNS})`;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A fresh folder for log files: in shared memory where the system has it
 * (the files live for seconds; a disk would write back pages already deleted),
 * else in the temporary folder. The caller removes it. Folders left by runs
 * that were killed (their process is gone) are removed first: in shared
 * memory they would hold RAM until the next boot.
 */
export function createLogDir(base: string = defaultLogBase()): string {
  removeOrphans(base);
  return fs.mkdtempSync(path.join(base, `${LOG_DIR_PREFIX}${process.pid}-`));
}

const LOG_DIR_PREFIX = 'chainq-logs-';

function defaultLogBase(): string {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM'; // someone else's live process
  }
};

function removeOrphans(base: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(base);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = new RegExp(`^${LOG_DIR_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) fs.rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

export interface LogFileWriter extends LogSink {
  readonly path: string;
  /** Ends the array and closes the file; false when no page held a log (the file is then removed). */
  close(): boolean;
  /** Closes and removes the file (a failed fetch). */
  discard(): void;
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

/**
 * A log file being written: one JSON array holding the contents of every
 * page, comma-separated. Writes are synchronous (the file is in memory, see
 * createLogDir); a page whose attempt failed is cut off again.
 */
export function openLogFile(file: string): LogFileWriter {
  const fd = fs.openSync(file, 'w');
  let offset = 0;
  let hasLogs = false;
  let open = true;
  const write = (b: Buffer) => {
    let done = 0;
    while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, offset + done);
    offset += b.length;
  };
  write(OPEN);
  const finish = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    path: file,
    page(): ArraySink {
      const mark = { offset, hasLogs };
      let started = false;
      return {
        write(b) {
          if (!started) {
            if (b.every(isSpace)) return;
            started = true;
            if (hasLogs) write(COMMA);
            hasLogs = true;
          }
          write(b);
        },
        abort() {
          fs.ftruncateSync(fd, mark.offset);
          offset = mark.offset;
          hasLogs = mark.hasLogs;
          started = false;
        },
      };
    },
    close() {
      write(CLOSE);
      finish();
      if (!hasLogs) fs.rmSync(file, { force: true });
      return hasLogs;
    },
    discard() {
      finish();
      fs.rmSync(file, { force: true });
    },
  };
}

/** Writes the logs of JSON arrays (as eth_getLogs answers hold them) as one log file. */
export function writeLogFile(file: string, arrays: readonly string[]): void {
  const writer = openLogFile(file);
  for (const a of arrays) {
    const text = a.trim();
    writer.page().write(Buffer.from(text.slice(1, -1)));
  }
  writer.close();
}

export interface LogFileScan {
  /** Hash of every block that has logs, as the logs name it; a block named with two hashes appears as a conflict. */
  readonly blockHashes: ReadonlyMap<number, string>;
  /** The log indices of every block that has logs, to check against its receipts. */
  readonly logIndices: ReadonlyMap<number, readonly number[]>;
  /** A block whose logs disagree on its hash, or a log the node marks removed: the chain moved while we read. */
  readonly conflict: string | null;
  /** The logs JS decoders read, in block and log order. */
  readonly jsLogs: readonly RpcLog[];
  /** What each engine decoder needs at commit, by dataset. */
  readonly engine: ReadonlyMap<string, EngineBatch>;
}

/**
 * One pass over the file, grouped by block: each block's hash as its logs
 * name it, and every engine decoder's aggregates. JS decoders' logs, when
 * the file holds any, take a second pass.
 */
export async function scanLogFile(store: Store, file: string, decoders: { readonly js: readonly JsDecoder[]; readonly engine: readonly EngineDecoder[] }): Promise<LogFileScan> {
  const params: Record<string, string> = { file };
  const aggregates: string[] = [];
  decoders.engine.forEach((d, i) => {
    for (const [name, value] of Object.entries(d.engine.scanParams)) {
      if (name in params || /^t\d+$/.test(name)) throw new Error(`${d.protocol}: the scan parameter ${name} is taken`);
      params[name] = value;
    }
    for (const [name, sql] of Object.entries(d.engine.scan)) aggregates.push(`${sql} AS "e${i}.${name}"`);
  });
  // The JS decoders' logs are counted in the same pass, so that the second pass runs only when there are some.
  const jsTopics = [...new Set(decoders.js.flatMap((d) => d.topic0))];
  jsTopics.forEach((t, i) => {
    params[`t${i}`] = t;
  });
  const jsMatch = jsTopics.length === 0 ? 'false' : `topics[1] IN (${jsTopics.map((_, i) => `$t${i}`).join(', ')})`;
  return store.transaction(async (tx) => {
    const blocks = await tx.all<Record<string, unknown> & { n: bigint; hash: string; hashes: bigint; removed: boolean; js: bigint; indices: string[] }>(
      `SELECT blockNumber::BIGINT AS n, lower(min(blockHash)) AS hash, count(DISTINCT lower(blockHash)) AS hashes, list(logIndex) AS indices,
              bool_or(coalesce(removed, false)) AS removed, count(*) FILTER (WHERE ${jsMatch}) AS js${aggregates.map((a) => `, ${a}`).join('')}
       FROM ${logFileRelation('file')} GROUP BY 1`,
      params,
    );
    const blockHashes = new Map<number, string>();
    const logIndices = new Map<number, number[]>();
    let conflict: string | null = null;
    for (const b of blocks) {
      const n = Number(b.n);
      blockHashes.set(n, b.hash);
      logIndices.set(
        n,
        b.indices.map((i) => Number(BigInt(i))),
      );
      if (b.removed) conflict ??= `the node marks a log of block ${n} removed`;
      if (Number(b.hashes) > 1) conflict ??= `the logs of block ${n} name two versions of it`;
    }
    const engine = new Map<string, EngineBatch>();
    decoders.engine.forEach((d, i) => {
      const names = Object.keys(d.engine.scan);
      const perBlock = blocks.map((b) => Object.fromEntries(names.map((name) => [name, b[`e${i}.${name}`]])));
      engine.set(d.datasets[0]!, d.engine.prepare(perBlock));
    });
    const jsLogs = blocks.some((b) => Number(b.js) > 0) ? await jsLogsOf(tx, file, jsTopics) : [];
    return { blockHashes, logIndices, conflict, jsLogs, engine };
  });
}

async function jsLogsOf(tx: Tx, file: string, topic0: readonly string[]): Promise<RpcLog[]> {
  if (topic0.length === 0) return [];
  const params = { file, ...Object.fromEntries(topic0.map((t, i) => [`t${i}`, t])) };
  return tx.all<RpcLog>(
    `SELECT address, topics, data, blockNumber, blockHash, transactionHash, transactionIndex, logIndex
     FROM ${logFileRelation('file')} WHERE topics[1] IN (${topic0.map((_, i) => `$t${i}`).join(', ')})
     ORDER BY blockNumber::BIGINT, logIndex::BIGINT`,
    params,
  );
}
