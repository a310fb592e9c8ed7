/**
 * Streams the CSV out of an archive zip into a plain file for DuckDB to
 * read, with fflate's streaming unzip: memory stays at one chunk, whatever
 * the size of the day's trades.
 */
import fs from 'node:fs';
import { Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import { centralRecord, createCrc32 } from './zipCrc.ts';

/** Writes the zip's first `.csv` entry to `outFile`, checked against the CRC-32 and size its central directory records; returns the entry name. */
export async function unzipCsv(zipFile: string, outFile: string): Promise<string> {
  const fd = fs.openSync(outFile, 'w');
  let name: string | null = null;
  let finished = false;
  let failure: Error | null = null;
  const crc = createCrc32();
  let written = 0;
  try {
    const unzip = new Unzip((entry) => {
      if (name !== null || !entry.name.toLowerCase().endsWith('.csv')) return; // entries not started are skipped
      name = entry.name;
      entry.ondata = (err, chunk, final) => {
        if (err) {
          failure ??= err;
          return;
        }
        if (chunk.length) {
          fs.writeSync(fd, chunk);
          crc.update(chunk);
          written += chunk.length;
        }
        if (final) finished = true;
      };
      entry.start();
    });
    unzip.register(UnzipPassThrough);
    unzip.register(UnzipInflate);
    for await (const chunk of fs.createReadStream(zipFile, { highWaterMark: 1 << 20 })) {
      unzip.push(chunk as Buffer);
      if (failure) break;
    }
    if (!failure) unzip.push(new Uint8Array(0), true);
  } catch (e) {
    failure ??= e instanceof Error ? e : new Error(String(e));
  } finally {
    fs.closeSync(fd);
  }
  if (failure) throw new Error(`${zipFile}: not a readable zip: ${(failure as Error).message}`);
  if (name === null) throw new Error(`${zipFile}: the zip holds no .csv file`);
  if (!finished) throw new Error(`${zipFile}: the zip ends inside ${name}`);
  const record = centralRecord(zipFile, name);
  if (record === null) throw new Error(`${zipFile}: the zip has no central directory entry for ${name}: it is cut or damaged`);
  if (record.size !== null && record.size !== written) throw new Error(`${zipFile}: ${name} unpacks to ${written} bytes, the zip records ${record.size}`);
  if (record.crc !== crc.value) throw new Error(`${zipFile}: ${name} fails its CRC-32 check (the zip's bytes are damaged)`);
  return name;
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
