/**
 * Renders every failure as `{status:"error", error, code}` (docs/api.md, "Errors").
 * Schema-validation failures become the 400 codes; anything unexpected
 * becomes `internal_error` with no SQL and no stack in the body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Params } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { errnoCode, statusCodeOf } from '../utils/errorText.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A data route's catalog parameters, so that a validation error can name accepted values. */
    catalogParams?: Params;
  }
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The closest accepted name, when one is near enough to be a typo. */
export function suggest(name: string, accepted: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const a of accepted) {
    const d = editDistance(name, a);
    if (d < bestDist) {
      best = a;
      bestDist = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  // One row of the table: prev[j] is the distance between a's first i letters and b's first j.
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  const at = (j: number) => prev[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    let diag = at(0);
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = at(j);
      prev[j] = Math.min(above + 1, at(j - 1) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = above;
    }
  }
  return at(b.length);
}

export function validationToApiError(errors: readonly AjvError[], accepted: readonly string[], params: Params = {}): ApiError {
  const e = errors[0];
  if (!e) return new ApiError('invalid_parameter', 'invalid request');
  const param = e.instancePath.replace(/^\//, '');
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(e.params.additionalProperty);
      const hint = suggest(name, accepted);
      return new ApiError('unknown_parameter', `unknown parameter '${name}'${hint ? `; did you mean '${hint}'?` : ''}`, { parameter: name, accepted: [...accepted] });
    }
    case 'required': {
      const name = String(e.params.missingProperty);
      const values = params[name]?.enum;
      if (values) return new ApiError('missing_parameter', `${name} is required; accepted values: ${values.join(', ')}`, { parameter: name, supported: [...values] });
      return new ApiError('missing_parameter', `${name} is required`, { parameter: name });
    }
    case 'type': {
      const type = String(e.params.type);
      const what = type === 'integer' ? 'an integer' : type === 'number' ? 'a number' : type === 'boolean' ? 'true or false' : 'a single string value';
      return new ApiError('invalid_parameter', `${param} must be ${what}`, { parameter: param });
    }
    case 'enum': {
      const allowed: unknown[] = Array.isArray(e.params.allowedValues) ? e.params.allowedValues : [];
      return new ApiError('invalid_parameter', `${param} must be one of ${allowed.join(', ')}`, { parameter: param, supported: allowed });
    }
    case 'minimum':
      return new ApiError('invalid_parameter', `${param} must be at least ${String(e.params.limit)}`, { parameter: param });
    default:
      return new ApiError('invalid_parameter', `${param || 'request'} ${e.message ?? 'is invalid'}`, { parameter: param });
  }
}

/** What Fastify's own errors carry, read from whatever was thrown. */
interface FastifyFailure {
  readonly validation: AjvError[] | undefined;
  readonly code: string | undefined;
  readonly statusCode: number | undefined;
}

function fastifyFailure(err: unknown): FastifyFailure {
  const validation = typeof err === 'object' && err !== null && 'validation' in err && Array.isArray(err.validation) ? err.validation : undefined;
  return { validation, code: errnoCode(err), statusCode: statusCodeOf(err) };
}

/** The properties a JSON Schema object declares (a route's query string). */
function propertyNames(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null || !('properties' in schema)) return [];
  const { properties } = schema;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const fe = fastifyFailure(err);
  if (fe.validation) {
    const params = request.routeOptions.config?.catalogParams;
    return validationToApiError(fe.validation, propertyNames(request.routeOptions.schema?.querystring), params);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    // Label uploads are CSV; every other body is JSON.
    const csv = request.url.startsWith('/v1/labels/');
    return new ApiError('unsupported_media_type', csv ? 'send the labels as Content-Type: text/csv, with the header address,label,category[,network]' : 'send the body as application/json');
  }
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' || (fe.statusCode === 400 && fe.code?.startsWith('FST_ERR_CTP'))) {
    return new ApiError('invalid_body', 'the body is not valid JSON');
  }
  if (fe.statusCode === 400 && err instanceof SyntaxError) return new ApiError('invalid_body', 'the body is not valid JSON');
  if (fe.statusCode === 413) return new ApiError('invalid_body', 'the body is too large');
  return new ApiError('internal_error', 'internal error; the request was not charged');
}

export function sendError(err: ApiError, reply: FastifyReply): FastifyReply {
  return reply.code(err.status).header('content-type', 'application/json; charset=utf-8').send(err.toBody());
}
