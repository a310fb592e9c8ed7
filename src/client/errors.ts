/**
 * Typed errors of the chainq client: one class per kind of failure, built
 * from the server's error body `{status: "error", error, code, ...extra}`.
 */
import type { API_ERRORS, ApiErrorCode } from '../errors/codes.ts';
import { parseRetryAfter } from '../utils/retryAfter.ts';
import type { ExportStatus } from './exportTypes.ts';

/** The error codes the server answers: its own list (src/errors/codes.ts), not a copy. */
export type ErrorCode = ApiErrorCode;

export interface ErrorBody {
  readonly status: 'error';
  readonly error: string;
  readonly code: ErrorCode | (string & {});
  readonly [extra: string]: unknown;
}

/** Any answer of the server that is not a success. */
export class ChainqError extends Error {
  override readonly name: string = 'ChainqError';
  /** HTTP status. */
  readonly status: number;
  /** The server's error code (docs/api.md, "Errors"), or `http_<status>` when the body was not an error body. */
  readonly code: string;
  /** The whole error body: message, code and any extra fields. */
  readonly body: ErrorBody;
  /** X-Request-Id of the response, for support. */
  readonly requestId: string | null;

  constructor(status: number, body: ErrorBody, requestId: string | null = null) {
    super(`${body.error} (${status} ${body.code})`);
    this.status = status;
    this.code = body.code;
    this.body = body;
    this.requestId = requestId;
  }
}

/** 400: the request is wrong; the message says how. Nothing was charged. */
export class InvalidRequestError extends ChainqError {
  override readonly name: string = 'InvalidRequestError';
  /** The parameter at fault, when the server names one. */
  get parameter(): string | undefined {
    return typeof this.body.parameter === 'string' ? this.body.parameter : undefined;
  }
}

/** 400 cost_over_limit: the query costs more than the `max_cost` the caller set. Nothing was run or charged. */
export class CostOverLimitError extends InvalidRequestError {
  override readonly name: string = 'CostOverLimitError';
  get cost(): number {
    return Number(this.body.cost);
  }
  get maxCost(): number {
    return Number(this.body.max_cost);
  }
}

/** 401: no key, or a key that is unknown or revoked. */
export class AuthenticationError extends ChainqError {
  override readonly name = 'AuthenticationError';
}

/** 403: the query costs more than the monthly budget left. Nothing was charged. */
export class QuotaExceededError extends ChainqError {
  override readonly name = 'QuotaExceededError';
  get remaining(): number {
    return Number(this.body.remaining);
  }
  get cost(): number {
    return Number(this.body.cost);
  }
}

/** 404: unknown path, protocol, event type or venue. */
export class NotFoundError extends ChainqError {
  override readonly name = 'NotFoundError';
}

/** 405 */
export class MethodNotAllowedError extends ChainqError {
  override readonly name = 'MethodNotAllowedError';
}

/**
 * 409 cursor_reorged: the block a pull's cursor names was rolled back. Every row
 * above `blockNumber` read before is void; continue from `cursor`. Nothing was charged.
 */
export class CursorReorgedError extends ChainqError {
  override readonly name = 'CursorReorgedError';
  /** The newest block still on the chain that the old cursor had delivered. */
  get blockNumber(): number {
    return Number(this.body.block_number);
  }
  get blockHash(): string {
    return String(this.body.block_hash);
  }
  /** The cursor to pull from next. */
  get cursor(): string {
    return String(this.body.cursor);
  }
}

/** 410: a download link that has expired. */
export class LinkExpiredError extends ChainqError {
  override readonly name = 'LinkExpiredError';
}

/** 415 */
export class UnsupportedMediaTypeError extends ChainqError {
  override readonly name = 'UnsupportedMediaTypeError';
}

/** 429 after the client's retries were used up. */
export class RateLimitedError extends ChainqError {
  override readonly name = 'RateLimitedError';
  /** Seconds the server asked to wait, when it said. */
  readonly retryAfter: number | null;
  constructor(status: number, body: ErrorBody, requestId: string | null, retryAfter: number | null) {
    super(status, body, requestId);
    this.retryAfter = retryAfter;
  }
}

/** 500: the server failed; the request was not charged. */
export class InternalServerError extends ChainqError {
  override readonly name = 'InternalServerError';
}

/** 503: the server (or its metering store) is not ready; retry later. */
export class UnavailableError extends ChainqError {
  override readonly name = 'UnavailableError';
}

/** The body broke off before its end (connection lost, or the server failed mid-stream). Such a response is not charged. */
export class IncompleteResponseError extends Error {
  override readonly name = 'IncompleteResponseError';
  constructor(
    readonly requestId: string | null,
    options?: { cause?: unknown },
  ) {
    super('the response broke off before its end; it was not charged, retry the request', options);
  }
}

/** An HTTP status the server answers errors with. */
type ErrorStatus = (typeof API_ERRORS)[ApiErrorCode];

const BY_STATUS: Partial<Record<ErrorStatus, new (status: number, body: ErrorBody, requestId: string | null) => ChainqError>> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: QuotaExceededError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  410: LinkExpiredError,
  415: UnsupportedMediaTypeError,
  500: InternalServerError,
  503: UnavailableError,
};

/** The typed error for a failed response, from its status, body and headers. */
export function errorFrom(status: number, text: string, headers: Headers): ChainqError {
  let body: ErrorBody;
  try {
    const parsed = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof parsed?.error !== 'string' || typeof parsed.code !== 'string') throw new Error('not an error body');
    body = parsed as ErrorBody;
  } catch {
    body = { status: 'error', error: text.slice(0, 200) || `HTTP ${status}`, code: `http_${status}` };
  }
  const requestId = headers.get('x-request-id');
  if (status === 429) return new RateLimitedError(status, body, requestId, retryAfterSeconds(headers.get('retry-after')));
  if (status === 400 && body.code === ('cost_over_limit' satisfies ErrorCode)) return new CostOverLimitError(status, body, requestId);
  if (status === 409 && body.code === 'cursor_reorged') return new CursorReorgedError(status, body, requestId);
  const Cls = BY_STATUS[status as ErrorStatus] ?? (status >= 500 ? InternalServerError : ChainqError);
  return new Cls(status, body, requestId);
}

/** Retry-After in whole seconds, rounded up. Null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  const ms = parseRetryAfter(value, now);
  return ms === undefined ? null : Math.ceil(ms / 1000);
}

/** An export that ended failed or cancelled while it was waited for. */
export class ExportFailedError extends Error {
  override readonly name = 'ExportFailedError';
  constructor(
    /** The export's last status, with its `error` when it failed. */
    readonly job: ExportStatus,
  ) {
    super(job.error ? `export ${job.id} ${job.status}: ${job.error.error} (${job.error.code})` : `export ${job.id} ${job.status}`);
  }
}

/** A downloaded export file whose size or SHA-256 is not the manifest's; the partial file was removed. */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  constructor(
    readonly file: string,
    readonly expected: { readonly bytes: number; readonly sha256: string },
    readonly actual: { readonly bytes: number; readonly sha256: string },
  ) {
    super(`${file}: expected ${expected.bytes} bytes with sha256 ${expected.sha256}, received ${actual.bytes} bytes with sha256 ${actual.sha256}`);
  }
}
