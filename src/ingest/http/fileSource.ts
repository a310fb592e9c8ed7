/**
 * Where archive files come from: a base URL (http, https) or a local
 * directory with the same layout (a path or a file:// URL). Adapters ask for
 * files by their path relative to that base and never care which it is.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { fetchWithRetry, HttpError, redact, type HttpOptions } from './fetchWithRetry.ts';

export interface FetchedFile {
  /** A local file holding the bytes. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
  /** true when `file` is a download the caller must delete. */
  readonly temporary: boolean;
}

export interface FileSource {
  /** The base, without credentials, for messages. */
  readonly description: string;
  readonly isLocal: boolean;
  /** The file at `rel` as a local file, or null when the source has no such file. */
  fetch(rel: string, tmpDir: string): Promise<FetchedFile | null>;
  /** A small text file (a checksum), or null when absent. */
  readText(rel: string): Promise<string | null>;
}

const isHttp = (base: string): boolean => /^https?:\/\//i.test(base);

/**
 * A source as a job description holds it: an http(s) URL as given, a local
 * directory as an absolute path (a job may run in a server started elsewhere).
 */
export function absoluteSource(base: string): string {
  if (isHttp(base)) return base;
  return base.startsWith('file://') ? fileURLToPath(base) : path.resolve(base);
}

export function createFileSource(base: string, http: HttpOptions): FileSource {
  if (isHttp(base)) return httpSource(base.replace(/\/+$/, ''), http);
  return dirSource(absoluteSource(base));
}

let tmpCounter = 0;
const tmpName = (tmpDir: string, rel: string) => path.join(tmpDir, `${process.pid}-${++tmpCounter}-${path.basename(rel)}`);

function httpSource(base: string, http: HttpOptions): FileSource {
  const url = (rel: string) => `${base}/${rel.split('/').map(encodeURIComponent).join('/')}`;
  return {
    description: redact(base),
    isLocal: false,
    async fetch(rel, tmpDir) {
      const file = tmpName(tmpDir, rel);
      const out = await fetchWithRetry(url(rel), { method: 'GET' }, http, async (res) => {
        if (res.status === 404) return null;
        if (!res.ok || !res.body) throw new HttpError(url(rel), res.status, await res.text().catch(() => ''));
        const hash = createHash('sha256');
        let bytes = 0;
        const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
        body.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          bytes += chunk.length;
        });
        try {
          await pipeline(body, fs.createWriteStream(file));
        } catch (e) {
          fs.rmSync(file, { force: true });
          throw e;
        }
        return { file, sha256: hash.digest('hex'), bytes, temporary: true };
      });
      return out;
    },
    async readText(rel) {
      return fetchWithRetry(url(rel), { method: 'GET' }, http, async (res) => {
        if (res.status === 404) return null;
        const text = await res.text();
        if (!res.ok) throw new HttpError(url(rel), res.status, text);
        return text;
      });
    },
  };
}

function dirSource(dir: string): FileSource {
  const local = (rel: string) => path.join(dir, ...rel.split('/'));
  return {
    description: dir,
    isLocal: true,
    async fetch(rel) {
      const file = local(rel);
      if (!fs.existsSync(file)) return null;
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of fs.createReadStream(file)) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
      }
      return { file, sha256: hash.digest('hex'), bytes, temporary: false };
    },
    async readText(rel) {
      const file = local(rel);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    },
  };
}
