/**
 * Link payloads in an S3-compatible bucket (AWS S3, MinIO, R2, …). The
 * download URL is still served by chainq, which streams the object, so
 * clients never need bucket credentials and expiry answers 410 the same way.
 * The SDK is loaded only when a bucket is configured.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { LinkBackend } from './backend.ts';

export interface S3LinkOptions {
  readonly bucket: string;
  /** Key prefix inside the bucket, e.g. `chainq-links/`. */
  readonly prefix?: string;
  /** Endpoint of a non-AWS store, e.g. http://127.0.0.1:9000. */
  readonly endpoint?: string;
  readonly region?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most self-hosted stores need. */
  readonly forcePathStyle?: boolean;
  /** Explicit credentials; otherwise the SDK's default chain (AWS_ACCESS_KEY_ID, profiles, roles). */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
}

export async function createS3Backend(opts: S3LinkOptions): Promise<LinkBackend> {
  const { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    region: opts.region ?? 'us-east-1',
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle ?? Boolean(opts.endpoint),
    ...(opts.accessKeyId && opts.secretAccessKey ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } } : {}),
    // Checksums only where S3 requires them: streamed uploads with trailing
    // checksums (the SDK default) are not understood by every compatible store.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const prefix = opts.prefix ?? 'chainq-links/';
  return {
    name: 's3',
    async put(localFile, key, contentType, bytes) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: opts.bucket,
            Key: prefix + key,
            Body: fs.createReadStream(localFile),
            ContentLength: bytes,
            ContentType: contentType,
          }),
        );
      } finally {
        await fs.promises.rm(localFile, { force: true });
      }
    },
    async get(key, range) {
      const r = await client.send(
        new GetObjectCommand({
          Bucket: opts.bucket,
          Key: prefix + key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      // In Node the body is an http.IncomingMessage, a Readable.
      return r.Body as Readable;
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: opts.bucket, Key: prefix + key }));
    },
  };
}
