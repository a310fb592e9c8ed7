/**
 * Unknown paths and wrong methods under /v1 are answered inside the /v1
 * scope, after authentication and the rate limit, so that they carry the
 * metering headers like every other /v1 response. (Static routes always win
 * over this wildcard, so it only sees what no route matches.)
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { sendError } from '../errorHandler.ts';

const METHODS = ['GET', 'POST'] as const;

export function registerV1Fallback(v1: FastifyInstance): void {
  v1.all('/v1/*', async (request, reply) => {
    const path = request.url.split('?')[0]!.replace(/(.)\/$/, '$1');
    const allowed = METHODS.filter((m) => m !== request.method && request.server.hasRoute({ method: m, url: path }));
    if (allowed.length) {
      return sendError(new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`), reply.header('allow', allowed.join(', ')));
    }
    return sendError(new ApiError('not_found', `no endpoint at ${path}; see /openapi.json`), reply);
  });
}
