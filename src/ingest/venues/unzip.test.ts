import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unzipCsv } from './unzip.ts';
import { crc32Js } from './zipCrc.ts';

const CSV = Buffer.from(Array.from({ length: 5000 }, (_, i) => `${6912000000 + i},91250.${i % 10},0.00${(i % 9) + 1},1764547200${String(i).padStart(3, '0')},${i % 2 === 0}`).join('\n'));

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-unzip-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (bytes: Uint8Array) => {
  const file = path.join(dir, 'a.zip');
  fs.writeFileSync(file, bytes);
  return file;
};
const out = () => path.join(dir, 'out.csv');

/** A zip as a streaming writer makes it: each entry's sizes and CRC-32 follow its data, the local header has none. */
function streamedZip(name: string, data: Uint8Array): Buffer {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const entry = new ZipDeflate(name, { level: 6 });
  zip.add(entry);
  entry.push(data, true);
  zip.end();
  return Buffer.concat(parts);
}

/** A stored entry whose central directory record keeps its sizes and offset in a zip64 extra field. */
function zip64Stored(name: string, data: Buffer): Buffer {
  const nameBytes = Buffer.from(name);
  const crc = zlib.crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(45, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const extra = Buffer.alloc(28);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(24, 2);
  extra.writeBigUInt64LE(BigInt(data.length), 4);
  extra.writeBigUInt64LE(BigInt(data.length), 12);
  extra.writeBigUInt64LE(0n, 20);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(45, 4);
  central.writeUInt16LE(45, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(0xffffffff, 20);
  central.writeUInt32LE(0xffffffff, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt16LE(extra.length, 30);
  central.writeUInt32LE(0xffffffff, 42);
  const dirOffset = local.length + nameBytes.length + data.length;
  const dirSize = central.length + nameBytes.length + extra.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(dirOffset, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, extra, end]);
}

describe('unzipCsv', () => {
  it('writes the first .csv entry, skipping entries of other kinds, and returns its name', async () => {
    const zip = zipSync({ 'README.txt': Buffer.from('not data'), 'BTCUSDT-trades.csv': CSV, 'later.csv': Buffer.from('1,2') }, { level: 6 });
    expect(await unzipCsv(write(zip), out())).toBe('BTCUSDT-trades.csv');
    expect(fs.readFileSync(out()).equals(CSV)).toBe(true);
  });

  it('reads an entry written by a streaming zipper, whose sizes and CRC-32 only the central directory and data descriptor hold', async () => {
    const zip = streamedZip('t.csv', CSV);
    expect(zip.readUInt16LE(6) & 0x8).toBe(0x8); // the local header defers its sizes
    expect(zip.readUInt32LE(18)).toBe(0);
    await unzipCsv(write(zip), out());
    expect(fs.readFileSync(out()).equals(CSV)).toBe(true);
  });

  it('reads sizes and the header offset from a zip64 extra field', async () => {
    await unzipCsv(write(zip64Stored('t.csv', CSV)), out());
    expect(fs.readFileSync(out()).equals(CSV)).toBe(true);
  });

  it('refuses a zip cut before its central directory', async () => {
    const zip = zipSync({ 't.csv': CSV }, { level: 6 });
    await expect(unzipCsv(write(zip.subarray(0, zip.length - 60)), out())).rejects.toThrow(/cut or damaged/);
  });

  it('refuses a deflated entry whose compressed bytes are damaged', async () => {
    const zip = Buffer.from(zipSync({ 't.csv': CSV }, { level: 6 }));
    for (let i = 200; i < 240; i++) zip[i] = zip[i]! ^ 0x5a;
    await expect(unzipCsv(write(zip), out())).rejects.toThrow(/t\.csv (is not readable|unpacks to|fails its CRC-32 check)/);
  });

  it('refuses an entry that unpacks to another size than its central directory records', async () => {
    const zip = Buffer.from(zipSync({ 't.csv': CSV }, { level: 6 }));
    const central = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(CSV.length + 1, central + 24);
    await expect(unzipCsv(write(zip), out())).rejects.toThrow(`t.csv unpacks to ${CSV.length} bytes, the zip records ${CSV.length + 1}`);
  });

  it('refuses a zip without a .csv entry', async () => {
    await expect(unzipCsv(write(zipSync({ 'a.txt': CSV })), out())).rejects.toThrow(/holds no \.csv file/);
  });
});

describe('crc32Js', () => {
  it("equals zlib's CRC-32 when fed chunk by chunk (the fallback for Node before 20.15)", () => {
    const a = CSV.subarray(0, 777);
    const b = CSV.subarray(777);
    expect(crc32Js(b, crc32Js(a))).toBe(zlib.crc32(CSV));
    expect(crc32Js(new Uint8Array(0))).toBe(0);
  });
});
