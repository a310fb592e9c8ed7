/**
 * The CRC-32 a zip records for each entry, and the CRC-32 of bytes as they
 * stream. fflate's streaming unzip does not compare them, so a zip whose
 * stored bytes were damaged (a local mirror without `.CHECKSUM` files, where
 * nothing else checks it) would load wrong rows without a word.
 */
import fs from 'node:fs';

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (the zip polynomial) over chunks: feed each chunk, read `value` at the end. */
export function createCrc32(): { update(chunk: Uint8Array): void; readonly value: number } {
  let crc = 0xffffffff;
  return {
    update(chunk) {
      for (let i = 0; i < chunk.length; i++) crc = TABLE[(crc ^ chunk[i]!) & 0xff]! ^ (crc >>> 8);
    },
    get value() {
      return (crc ^ 0xffffffff) >>> 0;
    },
  };
}

export interface ZipEntryRecord {
  readonly crc: number;
  /** Uncompressed size, or null when the central directory defers it to zip64 fields. */
  readonly size: number | null;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

/** The central directory's record of `name`, or null when the zip has no readable directory naming it. */
export function centralRecord(zipFile: string, name: string): ZipEntryRecord | null {
  const fd = fs.openSync(zipFile, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    // The end record sits in the last 22 bytes plus a comment of at most 65535.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    fs.readSync(fd, tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) return null;
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (dirOffset === 0xffffffff || dirOffset + dirSize > size) return null;
    const dir = Buffer.alloc(dirSize);
    fs.readSync(fd, dir, 0, dirSize, dirOffset);
    for (let p = 0; p + 46 <= dir.length && dir.readUInt32LE(p) === CENTRAL; ) {
      const nameLength = dir.readUInt16LE(p + 28);
      const entryName = dir.toString('utf8', p + 46, p + 46 + nameLength);
      if (entryName === name) {
        const declared = dir.readUInt32LE(p + 24);
        return { crc: dir.readUInt32LE(p + 16), size: declared === 0xffffffff ? null : declared };
      }
      p += 46 + nameLength + dir.readUInt16LE(p + 30) + dir.readUInt16LE(p + 32);
    }
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
