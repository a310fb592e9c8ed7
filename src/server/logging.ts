/**
 * What the server logs, and at which level (README "Operating": Logs):
 *
 * - every request: `incoming request` and `request completed` at info, with
 *   the URL's link ids redacted (a link's id is its only secret);
 * - a 4xx is the client's mistake: info (the completed line), never an error;
 * - a client that leaves before its response ends: one info line, no stack;
 * - a 5xx: error, with the error and its stack in the log and never in the
 *   response body.
 */
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type Logger } from 'pino';
import { redactLinkIds } from '../output/links/redact.ts';
import { errnoCode } from '../utils/errorText.ts';

/** Serialized errors are plain data: strings are redacted wherever they sit (message, stack, cause, SQL, paths). */
function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactLinkIds(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, depth + 1);
  return out;
}

interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/** The request and error serializers of the server's logs; they take the place of Fastify's defaults. */
export const logSerializers = {
  req(req: LoggedRequest) {
    return {
      method: req.method,
      url: req.url === undefined ? undefined : redactLinkIds(req.url),
      host: req.host,
      remoteAddress: req.ip,
      remotePort: req.socket?.remotePort,
    };
  },
  err(err: Error) {
    return redactDeep(pino.stdSerializers.err(err));
  },
};

/** A child of `logger` whose request and error lines never carry a link id. */
export function serverLogger(logger: Logger): Logger {
  return logger.child({}, { serializers: logSerializers });
}

/** The client closed the connection: whatever fails from here on is the consequence, not a fault. */
export function clientGone(request: FastifyRequest, reply: FastifyReply): boolean {
  if (reply.raw.writableFinished) return false;
  return reply.raw.destroyed || request.raw.socket?.destroyed === true;
}

export const CLIENT_LEFT = 'client closed the connection before the response ended';

/**
 * One info line when a client leaves before its response ended, whatever was
 * under way (the engine still planning, the body half sent, the charge being
 * recorded). Fastify's own stream-error line and the error handler stay quiet
 * about it, so there is exactly one.
 */
export function registerClientLeftLog(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) request.log.info({ res: reply, responseTime: reply.elapsedTime }, CLIENT_LEFT);
    });
    done();
  });
}

/** Fastify's own request-lifecycle lines, with chainq's levels and redaction. */
export class ServerLogController extends LogController {
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // The client left: registerClientLeftLog has said so.
    if (errnoCode(error) === 'ERR_STREAM_PREMATURE_CLOSE' || clientGone(request, reply)) return;
    reply.log.error({ res: reply, err: error }, 'response cut off by an error after its headers were sent');
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (reply.statusCode >= 500) reply.log.error({ res: reply, err: error }, 'internal error');
    else reply.log.info({ res: reply, code: errnoCode(error) }, 'request rejected');
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.info({ method: request.method, url: redactLinkIds(request.url) }, 'route not found');
  }
}
