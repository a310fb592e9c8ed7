/**
 * A batch's logs as the engine reads them: the eth_getLogs answers, streamed
 * unparsed into one JSON array file that DuckDB's `read_json` reads (in its
 * own threads, faster than V8, with no JS object per log).
 *
 * When the batch is fetched, `scanLogFile` reads what must be known before
 * the commit: each block's hash (checked against the headers), what engine
 * decoders need (token contracts, values only JS computes exactly), and the
 * logs JS decoders take, as objects. At commit, the store reads the file
 * again to write engine decoders' rows (`ChainBatch.transfers`). Both reads
 * are store operations (`store.chain`); this module only writes the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LogRecord, Store } from '../../store/types.ts';
import type { ArraySink } from '../rpc/createRpc.ts';
import type { Hex, LogSink, RpcLog } from '../rpc/getLogs.ts';
import type { EngineBatch, EngineDecoder, JsDecoder } from '../../protocols/types.ts';
import { errnoCode } from '../../utils/errorText.ts';

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

/** A node's hex text, checked. */
function hex(s: string): Hex {
  if (isHex(s)) return s;
  throw new Error(`the log file holds ${JSON.stringify(s.slice(0, 20))} where a hex value belongs`);
}
const isHex = (s: string): s is Hex => s.startsWith('0x');

const toRpcLog = (r: LogRecord): RpcLog => ({
  address: hex(r.address),
  topics: r.topics.map(hex),
  data: hex(r.data),
  blockNumber: hex(r.blockNumber),
  blockHash: hex(r.blockHash),
  transactionHash: hex(r.transactionHash),
  transactionIndex: hex(r.transactionIndex),
  logIndex: hex(r.logIndex),
});

/**
 * Reads what the commit needs from the file (`store.chain.scanLogFile`): the
 * JS decoders' logs as objects, and per engine decoder its transfers' count,
 * token contracts and amounts too wide for the engine.
 */
export async function scanLogFile(store: Store, file: string, decoders: { readonly js: readonly JsDecoder[]; readonly engine: readonly EngineDecoder[] }): Promise<LogFileScan> {
  const scan = await store.chain.scanLogFile(file, {
    jsTopics: decoders.js.flatMap((d) => d.topic0),
    transferSelectors: decoders.engine.flatMap((d) => (d.engine.event ? [] : [d.engine.selector])),
    events: decoders.engine.flatMap((d) => d.engine.event ?? []),
  });
  const engine = new Map<string, EngineBatch>();
  for (const d of decoders.engine) {
    const t = d.engine.event ? { events: scan.events.get(d.engine.event.table) ?? 0, tokens: [], wide: [] } : scan.transfers.get(d.engine.selector);
    if (t) engine.set(d.datasets[0]!, { events: t.events, tokens: t.tokens.map(hex), wide: t.wide });
  }
  return { blockHashes: scan.blockHashes, logIndices: scan.logIndices, conflict: scan.conflict, jsLogs: scan.jsLogs.map(toRpcLog), engine };
}
