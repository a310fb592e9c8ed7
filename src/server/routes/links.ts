/**
 * Link downloads: `GET /v1/links/<id>` serves a link-mode result without an
 * API key (docs/venues-tron-btc.md, "Link mode"), like a pre-signed object-store URL. Registered
 * outside the authenticated /v1 scope on purpose.
 *
 * Downloads can be verified and resumed (chainq's extension, docs/api.md):
 * `Repr-Digest` carries the file's SHA-256, and one `Range` is served as 206.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { decideRange, type ByteRange } from '../../output/links/byteRange.ts';
import type { LinkRecord, LinkStore } from '../../output/links/linkStore.ts';

export const LINK_ROUTE = '/v1/links/:id';

/** RFC 9530 `Repr-Digest`: the digest of the whole file, on whole and partial answers alike. */
export function reprDigest(sha256Hex: string): string {
  return `sha-256=:${Buffer.from(sha256Hex, 'hex').toString('base64')}:`;
}

/** A Range is honoured only while If-Range, when sent, still names this file. */
function rangeFor(request: FastifyRequest, record: LinkRecord): ReturnType<typeof decideRange> {
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && (!record.sha256 || ifRange !== `"${record.sha256}"`)) return { kind: 'whole' };
  return decideRange(request.headers.range, record.bytes);
}

export function registerLinkDownloads(app: FastifyInstance, links: LinkStore): void {
  app.get<{ Params: { id: string } }>(LINK_ROUTE, async (request, reply) => {
    const opened = await links.open(request.params.id);
    if (opened.kind === 'missing') throw new ApiError('not_found', 'no such link; links are only valid as handed out');
    if (opened.kind === 'expired') {
      throw new ApiError('link_expired', `this link expired at ${new Date(opened.record.expires_at).toISOString()}; run the query again for a new one`);
    }
    const { record, contentType } = opened;
    reply.header('accept-ranges', 'bytes').header('content-disposition', `attachment; filename="${record.filename}"`).header('cache-control', 'private, no-store');
    if (record.sha256) reply.header('repr-digest', reprDigest(record.sha256)).header('etag', `"${record.sha256}"`);
    const decision = rangeFor(request, record);
    if (decision.kind === 'unsatisfiable') {
      reply.header('content-range', `bytes */${record.bytes}`);
      throw new ApiError('range_not_satisfiable', `the Range ${request.headers.range} starts past the end of this ${record.bytes}-byte file`, { bytes: record.bytes });
    }
    const range: ByteRange | undefined = decision.kind === 'partial' ? decision.range : undefined;
    let body: Awaited<ReturnType<typeof opened.read>>;
    try {
      body = await opened.read(range);
    } catch {
      throw new ApiError('not_found', 'no such link; links are only valid as handed out');
    }
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) body.destroy();
    });
    reply.header('content-type', contentType);
    if (range) {
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${record.bytes}`);
      return reply.header('content-length', String(range.end - range.start + 1)).send(body);
    }
    return reply.header('content-length', String(record.bytes)).send(body);
  });
}

/** The scheme and host the client used, for absolute link URLs when no public URL is configured. */
export function requestBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
