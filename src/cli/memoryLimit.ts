/**
 * `chainq serve --memory-limit`: one bound on the whole server process, which
 * the operator sets once (and gives systemd as MemoryMax). The engine's own
 * memory_limit and the size of each streamed answer's buffers are derived from
 * it, so that the parts add up to the bound instead of each part having a
 * limit of its own that the others overrun.
 */
import { InvalidArgumentError } from 'commander';

const KIB = 1024;
const MIB = 1024 * KIB;

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: KIB,
  mib: MIB,
  gib: 1024 * MIB,
  tib: 1024 * 1024 * MIB,
};

/**
 * What the server holds besides the engine's working memory, measured idle on
 * the production build (bench/results/memory.json): Node and V8's heap, the
 * server's code, the engine's library and the open store.
 */
export const SERVER_BASE_BYTES = 160 * MIB;
/**
 * The engine runs past its memory_limit while streaming: the limit bounds its
 * buffer manager (the cache of table blocks), not its writers' own allocations,
 * which reached about 40% more at a 256 MiB limit (the engine-alone floor in
 * bench/results/serve-erc20.json). The engine gets the rest of the bound
 * divided by this.
 */
export const ENGINE_OVERSHOOT = 1.5;
/** The smallest bound: the base, 100 MiB of engine, and the stream buffers. */
export const MIN_MEMORY_LIMIT_BYTES = 320 * MIB;
/** Each streamed answer passes through about this many buffers (pipe reader, body, envelope). */
const BUFFERS_PER_STREAM = 3;
/** Stream buffers get at most this share of the bound… */
const STREAM_SHARE = 1 / 32;
/** …and each buffer between these sizes: smaller ones cost more system calls, larger ones hold memory for no speed. */
const STREAM_BUFFER_MIN = 64 * KIB;
const STREAM_BUFFER_MAX = 256 * KIB;

export const DEFAULT_MEMORY_LIMIT = '640MiB';

/** '640MiB', '1.5GB', '2GiB', '700000000': bytes. KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024 (systemd's K/M/G). */
export function parseMemorySize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[(m?.[2] || 'b').toLowerCase()];
  if (!m || unit === undefined) throw new InvalidArgumentError(`expected a size such as 640MiB, 1GB or 2GiB, got '${text}'`);
  return Math.floor(Number(m[1]) * unit);
}

export interface MemoryBudget {
  readonly totalBytes: number;
  /** DuckDB's memory_limit. */
  readonly engineBytes: number;
  /** The high-water mark of each buffer a streamed answer passes through. */
  readonly streamBufferBytes: number;
}

/** Splits the server's bound between its fixed base, the streams in flight (`streamsAtOnce`) and the engine. */
export function memoryBudget(totalBytes: number, streamsAtOnce: number): MemoryBudget {
  if (totalBytes < MIN_MEMORY_LIMIT_BYTES) throw new RangeError(`a memory bound of at least ${MIN_MEMORY_LIMIT_BYTES / MIB}MiB, got ${totalBytes} bytes`);
  const perBuffer = Math.floor((totalBytes * STREAM_SHARE) / (BUFFERS_PER_STREAM * Math.max(1, streamsAtOnce)));
  const streamBufferBytes = Math.min(STREAM_BUFFER_MAX, Math.max(STREAM_BUFFER_MIN, perBuffer));
  const streams = streamBufferBytes * BUFFERS_PER_STREAM * streamsAtOnce;
  const engineBytes = Math.floor((totalBytes - SERVER_BASE_BYTES - streams) / ENGINE_OVERSHOOT / MIB) * MIB;
  return { totalBytes, engineBytes, streamBufferBytes };
}

/** DuckDB's spelling of a size. */
export const engineSize = (bytes: number) => `${Math.floor(bytes / MIB)}MiB`;

/** The option's parser: a size no smaller than the server itself. */
export function memoryLimitOption(text: string): number {
  const bytes = parseMemorySize(text);
  if (bytes < MIN_MEMORY_LIMIT_BYTES) throw new InvalidArgumentError(`must be at least ${MIN_MEMORY_LIMIT_BYTES / MIB}MiB (the server alone holds about ${SERVER_BASE_BYTES / MIB}MiB), got '${text}'`);
  return bytes;
}
