/**
 * A zip's central directory: where each entry's bytes are and what they must
 * unpack to. Reading the directory first lets an entry be inflated by
 * node:zlib straight from its byte range, and gives the CRC-32 and size to
 * check the unpacked bytes against (a streaming unzip that only reads local
 * headers learns neither before the end, and some zips defer them to a data
 * descriptor).
 */
import fs from 'node:fs';

export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated; others are not read. */
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  /** Where the entry's local header starts. */
  readonly localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
const FULL32 = 0xffffffff;

function readAt(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

/** The 64-bit sizes and offset a zip64 extra field holds, in its order, for the 32-bit fields set to 0xffffffff. */
function zip64Values(extra: Buffer, wanted: readonly boolean[]): (number | null)[] {
  for (let p = 0; p + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(p);
    const length = extra.readUInt16LE(p + 2);
    if (id === ZIP64_EXTRA) {
      let q = p + 4;
      return wanted.map((w) => {
        if (!w || q + 8 > p + 4 + length) return null;
        const v = Number(extra.readBigUInt64LE(q));
        q += 8;
        return v;
      });
    }
    p += 4 + length;
  }
  return wanted.map(() => null);
}

/** The entries the central directory lists, in its order, or null when the zip has no readable directory (it is cut or damaged). */
export function zipEntries(fd: number): ZipEntry[] | null {
  const size = fs.fstatSync(fd).size;
  // The end record sits in the last 22 bytes plus a comment of at most 65535.
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, tailLength, size - tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirOffset = tail.readUInt32LE(eocd + 16);
  // A directory past 4 GiB (zip64 end record) is not read: one day's CSV zips to far less.
  if (dirOffset === FULL32 || dirOffset + dirSize > size) return null;
  const dir = readAt(fd, dirSize, dirOffset);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (; p + 46 <= dir.length && dir.readUInt32LE(p) === CENTRAL; ) {
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const name = dir.toString('utf8', p + 46, p + 46 + nameLength);
    const extra = dir.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    const size32 = dir.readUInt32LE(p + 24);
    const compressed32 = dir.readUInt32LE(p + 20);
    const offset32 = dir.readUInt32LE(p + 42);
    const [size64, compressed64, offset64] = zip64Values(extra, [size32 === FULL32, compressed32 === FULL32, offset32 === FULL32]);
    entries.push({
      name,
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      size: size64 ?? size32,
      compressedSize: compressed64 ?? compressed32,
      localOffset: offset64 ?? offset32,
    });
    p += 46 + nameLength + extraLength + dir.readUInt16LE(p + 32);
  }
  return p === dir.length ? entries : null;
}

/** Where the entry's stored bytes start (after its local header), or null when no local header is there. */
export function entryDataOffset(fd: number, entry: ZipEntry): number | null {
  const header = readAt(fd, 30, entry.localOffset);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL) return null;
  return entry.localOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
}
