/** Where link payloads live: the local links folder, or an S3-compatible bucket. */
import type { Readable } from 'node:stream';
import type { ByteRange } from './byteRange.ts';

export interface LinkBackend {
  readonly name: 'local' | 's3';
  /** Takes ownership of the finished file `localFile` and stores it as `key`. */
  put(localFile: string, key: string, contentType: string, bytes: number): Promise<void>;
  /** The stored bytes of `key`, or only those of `range`. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Deletes `key`; deleting what is already gone is not an error. */
  remove(key: string): Promise<void>;
}
