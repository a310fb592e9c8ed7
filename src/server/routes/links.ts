/**
 * Link downloads: `GET /v1/links/<id>` serves a link-mode result without an
 * API key (docs/venues-tron-btc.md, "Link mode"), like a pre-signed object-store URL. Registered
 * outside the authenticated /v1 scope on purpose.
 *
 * Downloads can be verified and resumed (chainq's extension, docs/api.md):
 * `Repr-Digest` carries the file's SHA-256, and one `Range` is served as 206.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { decideRange, type ByteRange } from '../../output/links/byteRange.ts';
import type { LinkStore } from '../../output/links/linkStore.ts';

export const LINK_ROUTE = '/v1/links/:id';

/** RFC 9530 `Repr-Digest`: the digest of the whole file, on whole and partial answers alike. */
export function reprDigest(sha256Hex: string): string {
  return `sha-256=:${Buffer.from(sha256Hex, 'hex').toString('base64')}:`;
}

/** A stored file to download: link payloads and export files are served alike. */
export interface DownloadFile {
  readonly filename: string;
  readonly bytes: number;
  /** SHA-256, hex; absent on links made before digests were recorded. */
  readonly sha256?: string | undefined;
  readonly contentType: string;
  read(range?: ByteRange): Promise<Readable>;
}

/** A Range is honoured only while If-Range, when sent, still names this file. */
function rangeFor(request: FastifyRequest, file: DownloadFile): ReturnType<typeof decideRange> {
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && (!file.sha256 || ifRange !== `"${file.sha256}"`)) return { kind: 'whole' };
  return decideRange(request.headers.range, file.bytes);
}

/**
 * Sends `file` as an attachment, whole or the one Range asked for (206), with
 * its digest; `gone` is the error answered when its bytes cannot be read.
 */
export async function sendDownload(request: FastifyRequest, reply: FastifyReply, file: DownloadFile, gone: () => ApiError): Promise<FastifyReply> {
  reply.header('accept-ranges', 'bytes').header('content-disposition', `attachment; filename="${file.filename}"`).header('cache-control', 'private, no-store');
  if (file.sha256) reply.header('repr-digest', reprDigest(file.sha256)).header('etag', `"${file.sha256}"`);
  const decision = rangeFor(request, file);
  if (decision.kind === 'unsatisfiable') {
    reply.header('content-range', `bytes */${file.bytes}`);
    throw new ApiError('range_not_satisfiable', `the Range ${request.headers.range} starts past the end of this ${file.bytes}-byte file`, { bytes: file.bytes });
  }
  const range: ByteRange | undefined = decision.kind === 'partial' ? decision.range : undefined;
  let body: Readable;
  try {
    body = await file.read(range);
  } catch {
    throw gone();
  }
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) body.destroy();
  });
  reply.header('content-type', file.contentType);
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.bytes}`);
    return reply.header('content-length', String(range.end - range.start + 1)).send(body);
  }
  return reply.header('content-length', String(file.bytes)).send(body);
}

export function registerLinkDownloads(app: FastifyInstance, links: LinkStore): void {
  const missing = () => new ApiError('not_found', 'no such link; links are only valid as handed out');
  app.get<{ Params: { id: string } }>(LINK_ROUTE, async (request, reply) => {
    const opened = await links.open(request.params.id);
    if (opened.kind === 'missing') throw missing();
    if (opened.kind === 'expired') {
      throw new ApiError('link_expired', `this link expired at ${new Date(opened.record.expires_at).toISOString()}; run the query again for a new one`);
    }
    const { record } = opened;
    return sendDownload(request, reply, { filename: record.filename, bytes: record.bytes, sha256: record.sha256, contentType: opened.contentType, read: opened.read }, missing);
  });
}

/** The scheme and host the client used, for absolute link URLs when no public URL is configured. */
export function requestBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
