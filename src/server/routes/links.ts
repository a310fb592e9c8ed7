/**
 * Link downloads: `GET /v1/links/<id>` serves a link-mode result without an
 * API key (decisions.md §6), like a pre-signed object-store URL. Registered
 * outside the authenticated /v1 scope on purpose.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import type { LinkStore } from '../../output/links/linkStore.ts';

export const LINK_ROUTE = '/v1/links/:id';

export function registerLinkDownloads(app: FastifyInstance, links: LinkStore): void {
  app.get<{ Params: { id: string } }>(LINK_ROUTE, async (request, reply) => {
    const opened = await links.open(request.params.id);
    if (opened.kind === 'missing') throw new ApiError('not_found', 'no such link; links are only valid as handed out');
    if (opened.kind === 'expired') {
      throw new ApiError('link_expired', `this link expired at ${new Date(opened.record.expires_at).toISOString()}; run the query again for a new one`);
    }
    const { record, body, contentType } = opened;
    reply.raw.on('close', () => { if (!reply.raw.writableFinished) body.destroy(); });
    return reply
      .header('content-type', contentType)
      .header('content-length', String(record.bytes))
      .header('content-disposition', `attachment; filename="${record.filename}"`)
      .header('cache-control', 'private, no-store')
      .send(body);
  });
}

/** The scheme and host the client used, for absolute link URLs when no public URL is configured. */
export function requestBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
