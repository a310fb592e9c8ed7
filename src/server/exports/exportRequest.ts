/** The body of POST /v1/exports (docs/api.md, "Exports"), checked field by field. */
import { ApiError } from '../../errors/apiError.ts';

export interface ExportRequest {
  readonly endpoint: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly format: 'parquet' | 'csv';
  readonly compression: 'gzip' | null;
  readonly partitionBlocks: number | null;
  readonly partitionDays: number | null;
  readonly maxCost: number | null;
}

const FIELDS = ['endpoint', 'params', 'format', 'compression', 'partition_blocks', 'partition_days', 'max_cost'];
/** Parameters of the endpoint that the export sets itself. */
const EXPORT_OWNED = ['format', 'link', 'max_cost'];
/** More partitions than this is a mistake, not an export. */
export const MAX_PARTITIONS = 10_000;
const USAGE = 'send {"endpoint": "/v1/…", "params": {…}, "format": "parquet"|"csv"}';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function positiveInteger(body: Record<string, unknown>, field: string): number | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new ApiError('invalid_parameter', `${field} must be a positive integer, got ${JSON.stringify(v)}`, { parameter: field });
  return v;
}

export function parseExportRequest(body: unknown): ExportRequest {
  if (!isObject(body)) throw new ApiError('invalid_body', `the body must be a JSON object: ${USAGE}`);
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  if (unknown.length) throw new ApiError('invalid_body', `unknown field ${unknown.join(', ')}; an export takes ${FIELDS.join(', ')}`);
  if (typeof body.endpoint !== 'string' || !body.endpoint.startsWith('/v1/')) throw new ApiError('invalid_body', `"endpoint" must be the path of a data endpoint: ${USAGE}`);
  const params = body.params ?? {};
  if (!isObject(params)) throw new ApiError('invalid_body', `"params" must be an object of the endpoint's query parameters: ${USAGE}`);
  for (const p of EXPORT_OWNED) {
    if (p in params) throw new ApiError('invalid_parameter', `${p} is not an endpoint parameter in an export: give "format" and "max_cost" at the top of the body`, { parameter: p });
  }
  const format = body.format ?? 'parquet';
  if (format !== 'parquet' && format !== 'csv') throw new ApiError('invalid_parameter', `format must be parquet or csv, got ${JSON.stringify(format)}`, { parameter: 'format' });
  const compression = body.compression ?? null;
  if (compression !== null && compression !== 'gzip') throw new ApiError('invalid_parameter', `compression must be gzip, got ${JSON.stringify(compression)}`, { parameter: 'compression' });
  if (compression === 'gzip' && format !== 'csv')
    throw new ApiError('conflicting_parameters', 'compression=gzip applies to csv only; parquet files are compressed already', { parameters: ['compression', 'format'] });
  const maxCost = body.max_cost ?? null;
  if (maxCost !== null && (typeof maxCost !== 'number' || !Number.isFinite(maxCost) || maxCost < 0)) {
    throw new ApiError('invalid_parameter', `max_cost must be a non-negative number, got ${JSON.stringify(maxCost)}`, { parameter: 'max_cost' });
  }
  return {
    endpoint: body.endpoint.replace(/\/$/, ''),
    params,
    format,
    compression,
    partitionBlocks: positiveInteger(body, 'partition_blocks'),
    partitionDays: positiveInteger(body, 'partition_days'),
    maxCost,
  };
}

/**
 * The endpoint's parameters as a query string carries them: the route's
 * validator then coerces and checks them exactly as on a GET.
 */
export function asQueryValues(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) out[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
  return out;
}
