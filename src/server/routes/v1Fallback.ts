/**
 * Unknown paths and wrong methods under /v1 are answered inside the /v1
 * scope, after authentication and the rate limit, so that they carry the
 * metering headers like every other /v1 response. (Static routes always win
 * over this wildcard, so it only sees what no route matches.) The answer is
 * given before the body is parsed: a wrong method is 405 whatever body it
 * carries, never a 415 for a body no route would read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { sendError } from '../errorHandler.ts';
import { urlPath } from '../urlPath.ts';

const METHODS = ['GET', 'POST'] as const;

function answer(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = urlPath(request.url).replace(/(.)\/$/, '$1');
  const allowed = METHODS.filter((m) => m !== request.method && request.server.hasRoute({ method: m, url: path }));
  if (allowed.length) {
    return sendError(new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`), reply.header('allow', allowed.join(', ')));
  }
  return sendError(new ApiError('not_found', `no endpoint at ${path}; see /openapi.json`), reply);
}

export function registerV1Fallback(v1: FastifyInstance): void {
  v1.all(
    '/v1/*',
    {
      // Route hooks run after the scope's (authentication, rate limit) and before body parsing.
      preParsing: async (request, reply) => answer(request, reply),
    },
    async (request, reply) => answer(request, reply),
  );
}
