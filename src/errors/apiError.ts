/**
 * Every error the API can answer, in one place (docs/api.md, "Errors"). Handlers
 * throw `ApiError`; the error handler renders `{status, error, code, ...extra}`.
 * Anything that is not an `ApiError` becomes `internal_error`, with no detail.
 */

export const API_ERRORS = {
  missing_parameter: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  conflicting_parameters: 400,
  invalid_range: 400,
  range_too_large: 400,
  unsupported_network: 400,
  unknown_token: 400,
  invalid_body: 400,
  cost_over_limit: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  quota_exceeded: 403,
  not_found: 404,
  method_not_allowed: 405,
  link_expired: 410,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

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
