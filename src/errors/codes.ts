/**
 * Every error code of the API and the HTTP status it answers with
 * (docs/api.md, "Errors"). This module imports nothing: the server's ApiError and
 * the client (`chainq/client`, src/client/errors.ts) both read it, so the
 * client never spells the codes again.
 */

export const API_ERRORS = {
  missing_parameter: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  conflicting_parameters: 400,
  invalid_range: 400,
  invalid_cursor: 400,
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
  cursor_reorged: 409,
  link_expired: 410,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;
