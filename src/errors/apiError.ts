/**
 * The errors the API answers (docs/api.md, "Errors"); their codes and statuses are
 * listed once, in codes.ts. Handlers throw `ApiError`; the error handler
 * renders `{status, error, code, ...extra}`. Anything that is not an
 * `ApiError` becomes `internal_error`, with no detail.
 */
import { API_ERRORS, type ApiErrorCode } from './codes.ts';

export { API_ERRORS, type ApiErrorCode } from './codes.ts';

export type ErrorExtra = Readonly<Record<string, unknown>>;

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly extra: ErrorExtra;

  constructor(code: ApiErrorCode, message: string, extra: ErrorExtra = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = API_ERRORS[code];
    this.extra = extra;
  }

  toBody(): Record<string, unknown> {
    return { status: 'error', error: this.message, code: this.code, ...this.extra };
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
