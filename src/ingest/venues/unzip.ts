/**
 * Streams the CSV out of an archive zip into a plain file for the store's
 * engine to read with its own CSV reader. The entry is found through the
 * zip's central directory and inflated by node:zlib (native code, off the
 * event loop) from its byte range: memory stays at one chunk, whatever the
 * size of the day's trades.
 */
import fs from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { createCrc32 } from './zipCrc.ts';
import { entryDataOffset, type ZipEntry, zipEntries } from './zipDirectory.ts';

const STORED = 0;
const DEFLATED = 8;
const CHUNK = 1 << 20;

/** Counts and checksums the bytes passing through. */
class Tally extends Transform {
  readonly crc = createCrc32();
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.crc.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

function csvEntry(zipFile: string, fd: number): { entry: ZipEntry; start: number } {
  const entries = zipEntries(fd);
  if (entries === null) throw new Error(`${zipFile}: the zip has no readable central directory: it is cut or damaged`);
  const entry = entries.find((e) => e.name.toLowerCase().endsWith('.csv'));
  if (!entry) throw new Error(`${zipFile}: the zip holds no .csv file`);
  if (entry.method !== STORED && entry.method !== DEFLATED) throw new Error(`${zipFile}: ${entry.name} is packed with zip method ${entry.method}; only stored and deflated entries are read`);
  const start = entryDataOffset(fd, entry);
  if (start === null || start + entry.compressedSize > fs.fstatSync(fd).size) throw new Error(`${zipFile}: the zip ends inside ${entry.name}`);
  return { entry, start };
}

/** Writes the zip's first `.csv` entry to `outFile`, checked against the CRC-32 and size its central directory records; returns the entry name. */
export async function unzipCsv(zipFile: string, outFile: string): Promise<string> {
  const fd = fs.openSync(zipFile, 'r');
  let found: { entry: ZipEntry; start: number };
  try {
    found = csvEntry(zipFile, fd);
  } finally {
    fs.closeSync(fd);
  }
  const { entry, start } = found;
  const tally = new Tally();
  // An empty range cannot be read as a stream (end before start): an empty entry is an empty file.
  const input = entry.compressedSize === 0 ? Readable.from([]) : fs.createReadStream(zipFile, { start, end: start + entry.compressedSize - 1, highWaterMark: CHUNK });
  const output = fs.createWriteStream(outFile);
  try {
    if (entry.method === DEFLATED) await pipeline(input, zlib.createInflateRaw({ chunkSize: CHUNK }), tally, output);
    else await pipeline(input, tally, output);
  } catch (e) {
    throw new Error(`${zipFile}: ${entry.name} is not readable: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (tally.bytes !== entry.size) throw new Error(`${zipFile}: ${entry.name} unpacks to ${tally.bytes} bytes, the zip records ${entry.size}`);
  if (tally.crc.value !== entry.crc) throw new Error(`${zipFile}: ${entry.name} fails its CRC-32 check (the zip's bytes are damaged)`);
  return entry.name;
}

/** true when the CSV starts with a header row (archive files gained headers over time). */
export function hasHeaderRow(csvFile: string): boolean {
  const fd = fs.openSync(csvFile, 'r');
  try {
    const buf = Buffer.alloc(64);
    const n = fs.readSync(fd, buf, 0, 64, 0);
    const head = buf
      .subarray(0, n)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    // Data rows start with a number or a date; header rows with a column name.
    return /^[A-Za-z_"]/.test(head);
  } finally {
    fs.closeSync(fd);
  }
}
