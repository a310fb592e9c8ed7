/**
 * Link mode (docs/venues-tron-btc.md, "Link mode"): a query result written to storage and handed
 * out as an unguessable URL that expires.
 *
 * - The id is 32 random bytes (256 bits), base64url: the URL is the only secret.
 * - Each link has a small record `<id>.json` in the links folder (format,
 *   rows, bytes, expiry) and a payload in the backend (`<id>.<format>`).
 * - A periodic sweep deletes the payloads of expired links. Their records
 *   stay on as tombstones for a while, so that an expired URL answers 410
 *   rather than 404, and are then deleted too.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FORMATS, LINK_FORMATS, type LinkFormat } from '../../catalog/formats.ts';
import { compileSchema } from '../../utils/jsonSchema.ts';
import type { LinkBackend } from './backend.ts';
import type { ByteRange } from './byteRange.ts';
import { createLocalBackend } from './localBackend.ts';
import { LINK_ID } from './redact.ts';
import { createS3Backend, type S3LinkOptions } from './s3Backend.ts';

export type { LinkFormat } from '../../catalog/formats.ts';

export interface LinkOptions {
  /** Folder of link records, and of payloads when no bucket is configured. */
  readonly dir: string;
  /** Lifetime of a link; default 3600 (one hour). */
  readonly ttlSeconds?: number;
  /** Base of the URLs handed out, e.g. https://data.example.com; default: taken from the request. */
  readonly publicUrl?: string;
  /** Seconds between sweeps; default 60. */
  readonly sweepSeconds?: number;
  /** How long an expired link still answers 410 before it is forgotten; default 7 days. */
  readonly tombstoneSeconds?: number;
  /** Store payloads in an S3-compatible bucket instead of `dir`. */
  readonly s3?: S3LinkOptions;
  /** Clock, epoch milliseconds; tests move it forward. */
  readonly now?: () => number;
}

export interface LinkRecord {
  readonly id: string;
  readonly format: LinkFormat;
  readonly filename: string;
  readonly key: string;
  readonly rows: number;
  readonly bytes: number;
  /** SHA-256 of the payload, hex; absent on links made before digests were recorded. */
  readonly sha256?: string;
  readonly created_at: number;
  readonly expires_at: number;
  /** The payload was deleted by a sweep. */
  readonly removed?: boolean;
}

/** The body of a link response (docs/venues-tron-btc.md, "Link mode"). */
export interface CreatedLink {
  readonly status: 'success';
  readonly url: string;
  readonly expires_at: string;
  readonly format: LinkFormat;
  readonly rows: number;
  readonly bytes: number;
  /** SHA-256 of the file, hex: chainq's extension, so that a download can be verified. */
  readonly sha256: string;
}

export interface LinkRequest {
  readonly format: LinkFormat;
  /** Download name without extension. */
  readonly basename: string;
  /** Writes the result to `file` and resolves with the number of rows. */
  write(file: string): Promise<number>;
}

export type OpenedLink =
  | { readonly kind: 'missing' }
  | { readonly kind: 'expired'; readonly record: LinkRecord }
  | { readonly kind: 'ok'; readonly record: LinkRecord; readonly contentType: string; read(range?: ByteRange): Promise<Readable> };

export interface SweepResult {
  readonly removed: number;
  readonly forgotten: number;
}

export interface LinkStore {
  readonly ttlSeconds: number;
  readonly backend: LinkBackend['name'];
  create(req: LinkRequest, requestBaseUrl: string): Promise<CreatedLink>;
  open(id: string): Promise<OpenedLink>;
  /** Deletes expired payloads and old tombstones. */
  sweep(): Promise<SweepResult>;
  /** Starts the periodic sweep (idempotent). */
  start(onError?: (e: unknown) => void): void;
  stop(): void;
}

const TMP_PREFIX = '.tmp-';
const isoMs = (ms: number) => new Date(ms).toISOString();

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** A link record as stored: checked when read back, so that a damaged file is a missing link rather than a bad value. */
const linkRecordSchema = compileSchema<LinkRecord>({
  type: 'object',
  required: ['id', 'format', 'filename', 'key', 'rows', 'bytes', 'created_at', 'expires_at'],
  properties: {
    id: { type: 'string' },
    format: { enum: LINK_FORMATS },
    filename: { type: 'string' },
    key: { type: 'string' },
    rows: { type: 'number' },
    bytes: { type: 'number' },
    sha256: { type: 'string' },
    created_at: { type: 'number' },
    expires_at: { type: 'number' },
    removed: { type: 'boolean' },
  },
});

/** Where a link store keeps its records and payloads, and its clock. */
interface LinkFiles {
  readonly dir: string;
  readonly backend: LinkBackend;
  readonly now: () => number;
  readonly ttlSeconds: number;
  readonly tombstoneMs: number;
  readonly publicUrl: string | undefined;
}

const recordFile = (f: LinkFiles, id: string) => path.join(f.dir, `${id}.json`);

async function writeRecord(f: LinkFiles, r: LinkRecord): Promise<void> {
  const tmp = path.join(f.dir, `${TMP_PREFIX}${r.id}.json`);
  await fs.promises.writeFile(tmp, JSON.stringify(r));
  await fs.promises.rename(tmp, recordFile(f, r.id));
}

async function readRecord(f: LinkFiles, id: string): Promise<LinkRecord | null> {
  try {
    const parsed: unknown = JSON.parse(await fs.promises.readFile(recordFile(f, id), 'utf8'));
    return linkRecordSchema(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

async function expire(f: LinkFiles, r: LinkRecord): Promise<void> {
  if (r.removed) return;
  await f.backend.remove(r.key);
  await writeRecord(f, { ...r, removed: true });
}

export async function createLinkStore(opts: LinkOptions): Promise<LinkStore> {
  const dir = path.resolve(opts.dir);
  await fs.promises.mkdir(dir, { recursive: true });
  const backend = opts.s3 ? await createS3Backend(opts.s3) : createLocalBackend(dir);
  const ttlSeconds = opts.ttlSeconds ?? 3600;
  if (!(ttlSeconds > 0)) throw new Error('links: ttlSeconds must be positive');
  const f: LinkFiles = { dir, backend, now: opts.now ?? Date.now, ttlSeconds, tombstoneMs: (opts.tombstoneSeconds ?? 7 * 86_400) * 1000, publicUrl: opts.publicUrl };
  let timer: NodeJS.Timeout | undefined;

  const store: LinkStore = {
    ttlSeconds,
    backend: backend.name,
    create: (req, requestBaseUrl) => createLink(f, req, requestBaseUrl),
    open: (id) => openLink(f, id),
    sweep: () => sweepLinks(f),

    start(onError) {
      if (timer) return;
      const every = (opts.sweepSeconds ?? 60) * 1000;
      timer = setInterval(() => {
        store.sweep().catch((e: unknown) => onError?.(e));
      }, every);
      timer.unref();
    },

    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  return store;
}

async function createLink(f: LinkFiles, req: LinkRequest, requestBaseUrl: string): Promise<CreatedLink> {
  const id = randomBytes(32).toString('base64url');
  const { extension, contentType } = FORMATS[req.format];
  const key = `${id}.${extension}`;
  const tmp = path.join(f.dir, `${TMP_PREFIX}${key}`);
  let rows: number;
  let bytes: number;
  let sha256: string;
  try {
    rows = await req.write(tmp);
    bytes = (await fs.promises.stat(tmp)).size;
    sha256 = await fileSha256(tmp);
    await f.backend.put(tmp, key, contentType, bytes);
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
  const created = f.now();
  const record: LinkRecord = {
    id,
    format: req.format,
    filename: `${req.basename}.${extension}`,
    key,
    rows,
    bytes,
    sha256,
    created_at: created,
    expires_at: created + f.ttlSeconds * 1000,
  };
  await writeRecord(f, record);
  const base = (f.publicUrl ?? requestBaseUrl).replace(/\/+$/, '');
  return { status: 'success', url: `${base}/v1/links/${id}`, expires_at: isoMs(record.expires_at), format: req.format, rows, bytes, sha256 };
}

async function openLink(f: LinkFiles, id: string): Promise<OpenedLink> {
  if (!LINK_ID.test(id)) return { kind: 'missing' };
  const record = await readRecord(f, id);
  if (!record) return { kind: 'missing' };
  if (f.now() >= record.expires_at || record.removed) {
    // Expired but not yet swept: delete it now rather than wait.
    await expire(f, record).catch(() => undefined);
    return { kind: 'expired', record };
  }
  return { kind: 'ok', record, contentType: FORMATS[record.format].contentType, read: (range) => f.backend.get(record.key, range) };
}

async function sweepLinks(f: LinkFiles): Promise<SweepResult> {
  let removed = 0;
  let forgotten = 0;
  const t = f.now();
  for (const name of await fs.promises.readdir(f.dir)) {
    const full = path.join(f.dir, name);
    if (name.startsWith(TMP_PREFIX)) {
      // Left behind by a crash mid-write.
      const st = await fs.promises.stat(full).catch(() => null);
      if (st && t - st.mtimeMs > 3_600_000) await fs.promises.rm(full, { force: true });
      continue;
    }
    if (!name.endsWith('.json')) continue;
    const r = await readRecord(f, name.slice(0, -'.json'.length));
    if (!r || t < r.expires_at) continue;
    if (!r.removed) {
      await expire(f, r);
      removed++;
    }
    if (t - r.expires_at > f.tombstoneMs) {
      await fs.promises.rm(full, { force: true });
      forgotten++;
    }
  }
  return { removed, forgotten };
}
