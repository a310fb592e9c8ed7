/**
 * Errors of the JSON-RPC transport. Every field is an own enumerable property,
 * so that `JSON.stringify(error)` (what @ponder/utils' getLogsRetryHelper
 * matches provider texts against) carries the node's message.
 */
import type { GetLogsRetryHelperParameters } from '@ponder/utils';
import { SourceError } from '../../errors/chainqError.ts';

export class RpcError extends SourceError {
  /** The node's text, repeated as an enumerable field for matchers. */
  readonly details: string;
  readonly method: string;
  /** Worth retrying after a pause: rate limits, timeouts, overloaded nodes. */
  readonly retryable: boolean;
  /** The wait the node asked for (HTTP Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, opts: { method: string; retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.details = message;
    this.method = opts.method;
    this.retryable = opts.retryable;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** The node answered with a JSON-RPC error object. */
export class RpcResponseError extends RpcError {
  /** The JSON-RPC error code (`code` is the error's kind, as every internal error's). */
  readonly rpcCode: number;
  readonly data: unknown;

  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`${method}: ${error.message} (code ${error.code})`, { method, retryable: isRetryableRpcCode(error.code, error.message) });
    this.rpcCode = error.code;
    this.data = error.data;
  }
}

/** The HTTP exchange failed: a status other than 200, a timeout, a refused connection, a body that is not JSON. */
export class RpcHttpError extends RpcError {
  readonly status: number | undefined;
  readonly body: string;
  /** No answer came within the timeout. */
  readonly timedOut: boolean;

  constructor(method: string, opts: { status?: number; body?: string; message: string; retryAfterMs?: number; cause?: unknown; retryable?: boolean; timedOut?: boolean }) {
    super(`${method}: ${opts.message}`, {
      method,
      retryable: opts.retryable ?? (opts.status === undefined || isRetryableStatus(opts.status)),
      ...(opts.retryAfterMs === undefined ? {} : { retryAfterMs: opts.retryAfterMs }),
      cause: opts.cause,
    });
    this.status = opts.status;
    this.body = opts.body ?? '';
    this.timedOut = opts.timedOut ?? false;
  }
}

/** HTTP statuses that a later attempt may not see (viem's and Ponder's lists). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 413 || status === 425 || status === 429 || (status >= 500 && ![501, 505].includes(status));
}

/**
 * JSON-RPC error codes worth retrying. -32005 is "limit exceeded", -32603
 * "internal error" (often an overloaded backend), 429 in a body is a rate
 * limit some providers report inside batches. -32000 is geth's catch-all: only
 * its transient texts are retried, never a revert.
 */
export function isRetryableRpcCode(code: number, message: string): boolean {
  if (code === -32005 || code === -32603 || code === -1 || code === 429) return true;
  if (code === -32000) return /header not found|timeout|timed out|rate|capacity|busy|try again|too many|unavailable|overload/i.test(message);
  return false;
}

/** The node does not know the method (or refuses it): the feature is unsupported, not broken. */
export function isUnsupportedMethod(e: unknown): boolean {
  if (e instanceof RpcResponseError) {
    return e.rpcCode === -32601 || e.rpcCode === -32004 || /not (found|supported|available)|unsupported|does not exist|disabled|not enabled/i.test(e.details);
  }
  if (e instanceof RpcHttpError) return e.status === 404 || e.status === 405 || e.status === 501;
  return false;
}

/**
 * An RpcError as @ponder/utils' getLogsRetryHelper takes it: the helper is typed
 * for viem's RpcError but only matches JSON.stringify(error), which carries our
 * fields (see above), and reads the JSON-RPC code as `code`.
 */
export function asHelperError(e: RpcError): GetLogsRetryHelperParameters['error'] {
  const view = { ...e, code: e instanceof RpcResponseError ? e.rpcCode : undefined };
  return view as unknown as GetLogsRetryHelperParameters['error'];
}
