/**
 * A listener of its own for Prometheus (`chainq serve --metrics-port`), so
 * that the public API listener never exposes the service's internals. It
 * answers `GET /metrics` and nothing else, and does not log scrapes.
 */
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { pino, type Logger } from 'pino';
import { ApiError } from '../errors/apiError.ts';
import type { Metrics } from '../internal/metrics.ts';
import { sendError } from './errorHandler.ts';
import { registerMetricsRoute } from './plugins/metrics.ts';

export interface MetricsListenerOptions {
  readonly metrics: Metrics;
  readonly port: number;
  /** 127.0.0.1 unless the operator means to expose it. */
  readonly host?: string;
  readonly logger?: Logger;
}

export interface MetricsListener {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(opts: MetricsListenerOptions): Promise<MetricsListener> {
  // Typed as Fastify's own logger, so that the instance is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = opts.logger ?? pino({ enabled: false });
  const app = Fastify({
    loggerInstance,
    // A scrape every few seconds would drown the request log.
    logController: new LogController({ disableRequestLogging: true }),
  });
  registerMetricsRoute(app, opts.metrics);
  app.setNotFoundHandler((_request, reply) => sendError(new ApiError('not_found', 'this listener serves GET /metrics only'), reply));
  app.setErrorHandler((err, request, reply) => {
    request.log.error({ err }, 'metrics rendering failed');
    return sendError(new ApiError('internal_error', 'internal error'), reply);
  });
  const host = opts.host ?? '127.0.0.1';
  const address = await app.listen({ port: opts.port, host });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${new URL(address).port}`,
    close: () => app.close(),
  };
}
