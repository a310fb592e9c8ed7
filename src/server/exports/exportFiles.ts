/**
 * Where export files live: `<dir>/<id>/<name>` on local disk, or objects of a
 * bucket under `chainq-exports/<id>/<name>` (the link backends of
 * src/output/links/). A partition is written under a temporary name in the
 * export's folder and only then renamed into place (or uploaded), so no file
 * is ever half-written under its final name.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { LinkBackend } from '../../output/links/backend.ts';
import type { ByteRange } from '../../output/links/byteRange.ts';
import { createLocalBackend } from '../../output/links/localBackend.ts';
import { createS3Backend, type S3LinkOptions } from '../../output/links/s3Backend.ts';

const S3_PREFIX = 'chainq-exports/';
const TMP_PREFIX = '.tmp-';

export interface WrittenFile {
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  /** The object's address when delivered to a bucket, else null. */
  readonly url: string | null;
}

export interface ExportFiles {
  readonly dir: string;
  readonly delivery: 'local' | 's3';
  /**
   * Writes a partition's file: `write` fills a temporary file with the engine's
   * output (gzipped afterwards when `gzip`); the finished file then takes its
   * final name. The temporary file is removed on failure. `write` hands `tap`
   * the bytes it writes, in order, when they pass through this process: the
   * file is then hashed on the way instead of read back.
   */
  put(exportId: string, name: string, gzip: boolean, write: (file: string, tap: ((piece: Uint8Array) => void) | undefined) => Promise<number>): Promise<WrittenFile>;
  read(exportId: string, name: string, range?: ByteRange): Promise<Readable>;
  /** Removes one file of an export (a partition written but not delivered). */
  discard(exportId: string, name: string): Promise<void>;
  /** Removes an export's files (what is already gone is not an error). */
  remove(exportId: string, names: readonly string[]): Promise<void>;
  /** Bytes of the files on local disk, temporary ones included. */
  diskBytes(): Promise<number>;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** The sha256 of the bytes a file was written from, as they were written. */
class StreamDigest {
  private readonly hash = createHash('sha256');
  bytes = 0;
  readonly tap = (piece: Uint8Array): void => {
    this.hash.update(piece);
    this.bytes += piece.byteLength;
  };
  /**
   * The file's sha256: from the bytes seen on the way when they were all of
   * the file's `bytes` (the engine's output passed through this process),
   * else read back from the file (the engine wrote it itself).
   */
  async of(file: string, bytes: number): Promise<string> {
    return this.bytes === bytes ? this.hash.digest('hex') : sha256Of(file);
  }
}

/** Passes bytes through, handing each piece to `tap` on the way. */
const tapping = (tap: (piece: Uint8Array) => void) =>
  new Transform({
    transform(piece: Buffer, _encoding, done) {
      tap(piece);
      done(null, piece);
    },
  });

export async function createExportFiles(dir: string, s3?: S3LinkOptions): Promise<ExportFiles> {
  const root = path.resolve(dir);
  await fs.promises.mkdir(root, { recursive: true });
  const backend: LinkBackend = s3 ? await createS3Backend({ ...s3, prefix: S3_PREFIX }) : createLocalBackend(root);
  const key = (exportId: string, name: string) => `${exportId}/${name}`;
  return {
    dir: root,
    delivery: backend.name,
    async put(exportId, name, gzip, write) {
      const folder = path.join(root, exportId);
      await fs.promises.mkdir(folder, { recursive: true });
      const tmp = path.join(folder, `${TMP_PREFIX}${name}`);
      const plain = gzip ? `${tmp}.plain` : tmp;
      // The digest of what lands in `tmp`: the engine's bytes, or the gzip's.
      const digest = new StreamDigest();
      try {
        const rows = await write(plain, gzip ? undefined : digest.tap);
        if (gzip) {
          await pipeline(fs.createReadStream(plain), createGzip(), tapping(digest.tap), fs.createWriteStream(tmp));
          await fs.promises.rm(plain, { force: true });
        }
        const bytes = (await fs.promises.stat(tmp)).size;
        const sha256 = await digest.of(tmp, bytes);
        await backend.put(tmp, key(exportId, name), 'application/octet-stream', bytes);
        const url = s3 ? `s3://${s3.bucket}/${S3_PREFIX}${key(exportId, name)}` : null;
        return { rows, bytes, sha256, url };
      } catch (e) {
        await Promise.all([fs.promises.rm(tmp, { force: true }), fs.promises.rm(plain, { force: true })]);
        throw e;
      }
    },
    read: (exportId, name, range) => backend.get(key(exportId, name), range),
    discard: (exportId, name) => backend.remove(key(exportId, name)),
    async remove(exportId, names) {
      if (backend.name === 's3') for (const n of names) await backend.remove(key(exportId, n));
      await fs.promises.rm(path.join(root, exportId), { recursive: true, force: true });
    },
    async diskBytes() {
      let total = 0;
      for (const entry of await fs.promises.readdir(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const st = await fs.promises.stat(path.join(entry.parentPath, entry.name)).catch(() => null);
        total += st?.size ?? 0;
      }
      return total;
    },
  };
}
