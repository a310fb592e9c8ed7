/**
 * Export jobs from the TypeScript client: `client.export(endpoint, params, options)`
 * starts one (POST /v1/exports) and returns an ExportJob, which follows it,
 * cancels it, reads its manifest and downloads its files, checking every
 * file's size and SHA-256 against the manifest before it takes the file's name.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sleep as waitMs } from '../utils/sleep.ts';
import { ChecksumMismatchError, ExportFailedError } from './errors.ts';
import type { ExportAccepted, ExportFile, ExportManifest, ExportOptions, ExportState, ExportStatus } from './exportTypes.ts';

export type * from './exportTypes.ts';

export interface WaitOptions {
  /** Called with every status read while the export runs, and with the last one. */
  readonly onProgress?: (status: ExportStatus) => void;
  /** Stops waiting (the export goes on; cancel() stops it). */
  readonly signal?: AbortSignal;
  /** Between two status reads. Default 1000 ms. */
  readonly intervalMs?: number;
}

export interface DownloadedFile {
  readonly name: string;
  readonly path: string;
  /** False when a valid copy was already there and was kept. */
  readonly downloaded: boolean;
}

/** How an ExportJob reaches the API: the client's own transport. */
export interface ExportTransport {
  json<T>(target: string, init?: { method: string; body?: string }): Promise<T>;
  /** The body of a GET, as it arrives; a non-2xx answer is thrown as a typed error. */
  body(target: string): AsyncIterable<Uint8Array>;
}

const FINISHED: readonly ExportState[] = ['done', 'failed', 'cancelled'];

type ParamValue = string | number | boolean | readonly string[] | readonly number[] | undefined;

/** The API's export request body from the client's options; list parameters joined with commas, as in a query string. */
export function exportRequest(endpoint: string, params: Readonly<Record<string, ParamValue>>, opts: ExportOptions): Record<string, unknown> {
  const wire: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    wire[k] = typeof v === 'object' ? v.join(',') : v;
  }
  return {
    endpoint,
    params: wire,
    ...(opts.format !== undefined ? { format: opts.format } : {}),
    ...(opts.compression !== undefined ? { compression: opts.compression } : {}),
    ...(opts.partitionBlocks !== undefined ? { partition_blocks: opts.partitionBlocks } : {}),
    ...(opts.partitionDays !== undefined ? { partition_days: opts.partitionDays } : {}),
    ...(opts.maxCost !== undefined ? { max_cost: opts.maxCost } : {}),
  };
}

/** Size and SHA-256 (hex) of a file on disk, or null when there is none. */
async function digestOf(file: string): Promise<{ bytes: number; sha256: string } | null> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of fs.createReadStream(file)) {
      const b: Buffer = chunk;
      hash.update(b);
      bytes += b.length;
    }
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return null;
    throw e;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A file's name from a manifest, refused when it could leave the target directory. */
function safeName(name: string): string {
  if (name !== path.basename(name) || name === '.' || name === '..' || name === '') throw new TypeError(`the manifest names a file outside the export: ${JSON.stringify(name)}`);
  return name;
}

/** One export job on the server. */
export class ExportJob {
  constructor(
    private readonly api: ExportTransport,
    readonly id: string,
    /** The server's answer when the export was accepted; null for a job looked up by id. */
    readonly accepted: ExportAccepted | null = null,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = waitMs,
  ) {}

  private get base(): string {
    return `/v1/exports/${encodeURIComponent(this.id)}`;
  }

  status(): Promise<ExportStatus> {
    return this.api.json<ExportStatus>(this.base);
  }

  /**
   * Reads the status until the export is done, and answers it. A failed or
   * cancelled export throws ExportFailedError (with the last status); an
   * aborted signal throws its reason.
   */
  async wait(opts: WaitOptions = {}): Promise<ExportStatus> {
    for (;;) {
      opts.signal?.throwIfAborted();
      const s = await this.status();
      opts.onProgress?.(s);
      if (s.status === 'done') return s;
      if (FINISHED.includes(s.status)) throw new ExportFailedError(s);
      await this.sleep(opts.intervalMs ?? 1000, opts.signal);
    }
  }

  /** Cancels a queued or running export (finished partitions stay charged and downloadable), or deletes a finished one's files. */
  cancel(): Promise<ExportStatus> {
    return this.api.json<ExportStatus>(this.base, { method: 'DELETE' });
  }

  /** The list of files with their sizes and SHA-256, once the export is done. */
  manifest(): Promise<ExportManifest> {
    return this.api.json<ExportManifest>(`${this.base}/manifest.json`);
  }

  /**
   * Downloads every file of the manifest into `dir` (made if missing). A file
   * already there with the manifest's size and SHA-256 is kept; any other is
   * fetched into `<name>.part` and takes its name only once its size and
   * SHA-256 match, else the partial file is removed and ChecksumMismatchError
   * is thrown.
   */
  async download(dir: string, opts: { signal?: AbortSignal } = {}): Promise<DownloadedFile[]> {
    const manifest = await this.manifest();
    await fs.promises.mkdir(dir, { recursive: true });
    const out: DownloadedFile[] = [];
    for (const f of manifest.files) {
      opts.signal?.throwIfAborted();
      const target = path.join(dir, safeName(f.name));
      const present = await digestOf(target);
      if (present && present.bytes === f.bytes && present.sha256 === f.sha256) {
        out.push({ name: f.name, path: target, downloaded: false });
        continue;
      }
      await this.fetchFile(f, target, opts.signal);
      out.push({ name: f.name, path: target, downloaded: true });
    }
    return out;
  }

  private async fetchFile(f: ExportFile, target: string, signal: AbortSignal | undefined): Promise<void> {
    const partial = `${target}.part`;
    const hash = createHash('sha256');
    let bytes = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        bytes += chunk.length;
        cb(null, chunk);
      },
    });
    const body = this.api.body(`${this.base}/files/${encodeURIComponent(f.name)}`);
    try {
      await pipeline(Readable.from(body), measure, fs.createWriteStream(partial), signal ? { signal } : {});
      const sha256 = hash.digest('hex');
      if (bytes !== f.bytes || sha256 !== f.sha256) throw new ChecksumMismatchError(f.name, { bytes: f.bytes, sha256: f.sha256 }, { bytes, sha256 });
      await fs.promises.rename(partial, target);
    } catch (e) {
      await fs.promises.rm(partial, { force: true });
      throw e;
    }
  }
}
