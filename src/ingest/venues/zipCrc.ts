/**
 * The CRC-32 (the zip polynomial) of bytes as they stream, to compare with
 * the one a zip records for an entry: node:zlib inflates without looking at
 * it, so a zip whose stored bytes were damaged (a local mirror without
 * `.CHECKSUM` files, where nothing else checks it) would load wrong rows
 * without a word.
 */
import zlib from 'node:zlib';

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** One byte at a time: for Node before 20.15, which has no zlib.crc32 (about 25 times slower). */
export function crc32Js(chunk: Uint8Array, previous = 0): number {
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < chunk.length; i++) crc = TABLE[(crc ^ chunk[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const crc32: (chunk: Uint8Array, previous?: number) => number = typeof zlib.crc32 === 'function' ? zlib.crc32 : crc32Js;

/** CRC-32 over chunks: feed each chunk, read `value` at the end. */
export function createCrc32(): { update(chunk: Uint8Array): void; readonly value: number } {
  let crc = 0;
  return {
    update(chunk) {
      crc = crc32(chunk, crc);
    },
    get value() {
      return crc;
    },
  };
}
