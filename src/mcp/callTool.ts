/**
 * What each MCP tool does: one API request with the caller's key (or none,
 * for describe_endpoint, which reads the catalog), turned into a compact
 * result. Errors are the API's own messages and codes.
 */
import { CALCULATE_COST_PATH } from '../catalog/calculateCost.ts';
import { discoveryPath } from '../catalog/derive/discovery.ts';
import { LINK_FORMATS } from '../catalog/formats.ts';
import { COVERED_RANGE_HEADER, DROPPED_TOKENS_HEADER } from '../catalog/responseHeaders.ts';
import type { ApiCall, ApiResponse } from './api.ts';

/** Where export jobs are started and read (docs/api.md, "Exports"). */
const EXPORTS_PATH = '/v1/exports';
import { DEFAULT_ROWS, MAX_ROWS, describeEndpoint, routeOf, servedEndpointIds } from './tools.ts';
import { compileSchema, describeSchemaError, parseWith, type Validator } from '../utils/jsonSchema.ts';

export interface ToolResult {
  readonly content: { type: 'text'; text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

type Args = Readonly<Record<string, unknown>>;

const ok = (value: Record<string, unknown>): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
const fail = (message: string, extra: Record<string, unknown> = {}): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify({ error: message, ...extra }) }],
  isError: true,
});

/** The API's error body as a tool error: its message, code and extra fields, and the HTTP status. */
function apiError(r: ApiResponse): ToolResult {
  try {
    const body: unknown = JSON.parse(r.text);
    if (isRecord(body) && typeof body.error === 'string') {
      const { status: _s, ...rest } = body;
      return fail(body.error, { ...rest, http_status: r.status });
    }
  } catch {
    /* not JSON: fall through */
  }
  return fail(`HTTP ${r.status}: ${r.text.slice(0, 200)}`, { http_status: r.status });
}

/** What the API charged for a request and what is left, from its metering headers. */
function metering(r: ApiResponse): Record<string, unknown> {
  const n = (h: string) => (r.headers[h] === undefined ? null : Number(r.headers[h]));
  return {
    cost: n('x-request-cost'),
    quota_remaining: n('x-ratelimit-remaining'),
    ...(r.headers['x-request-id'] ? { request_id: r.headers['x-request-id'] } : {}),
  };
}

/** A query string from tool parameters: lists joined with commas, like the TypeScript client. */
export function queryString(params: unknown, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  if (params && typeof params === 'object' && !Array.isArray(params)) {
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null) continue;
      p.set(k, Array.isArray(v) ? v.map(String).join(',') : String(v));
    }
  }
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON object the API answered. */
function jsonObject(r: ApiResponse): Record<string, unknown> {
  const body: unknown = JSON.parse(r.text);
  if (!isRecord(body)) throw new Error(`the API answered ${r.status} with JSON that is not an object`);
  return body;
}

/** The API's answer, checked against the parts of it a tool reads, so that an answer of another shape fails by name. */
function answer<T>(validate: Validator<T>, r: ApiResponse): T {
  return parseWith(validate, JSON.parse(r.text), (e) => new Error(`unexpected answer from the API: ${e ? describeSchemaError('answer', e) : 'invalid'}`));
}

interface CoverageEntry {
  dataset: string;
  network?: string;
  token?: string;
  unit: string;
  ranges: unknown[];
}
const coverageAnswer = compileSchema<{ coverage: CoverageEntry[] }>({
  type: 'object',
  required: ['coverage'],
  properties: {
    coverage: {
      type: 'array',
      items: {
        type: 'object',
        required: ['dataset', 'unit', 'ranges'],
        properties: { dataset: { type: 'string' }, network: { type: 'string' }, token: { type: 'string' }, unit: { type: 'string' }, ranges: { type: 'array' } },
      },
    },
  },
});

interface Token {
  symbol: string;
  name: string;
  aliases: string[];
  networks: Record<string, unknown>;
}
const tokensAnswer = compileSchema<Token[]>({
  type: 'array',
  items: {
    type: 'object',
    required: ['symbol', 'name', 'aliases', 'networks'],
    properties: { symbol: { type: 'string' }, name: { type: 'string' }, aliases: { type: 'array', items: { type: 'string' } }, networks: { type: 'object' } },
  },
});

const eventsAnswer = compileSchema<{ events: unknown[]; count: number }>({ type: 'object', required: ['events', 'count'], properties: { events: { type: 'array' }, count: { type: 'number' } } });

const manifestAnswer = compileSchema<{ files: ManifestFile[]; columns: unknown[] }>({
  type: 'object',
  required: ['files', 'columns'],
  properties: {
    columns: { type: 'array' },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'rows', 'bytes', 'sha256'],
        properties: { name: { type: 'string' }, rows: { type: 'number' }, bytes: { type: 'number' }, sha256: { type: 'string' }, url: { type: 'string' } },
      },
    },
  },
});

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export async function callTool(api: ApiCall, name: string, args: Args): Promise<ToolResult> {
  switch (name) {
    case 'list_datasets':
      return listDatasets(api, args);
    case 'list_tokens':
      return listTokens(api, args);
    case 'describe_endpoint': {
      const d = describeEndpoint(String(args.endpoint ?? ''));
      return d ? ok(d) : fail(`no endpoint '${String(args.endpoint)}'; list_datasets names them`, { code: 'not_found' });
    }
    case 'estimate_cost':
      return estimateCost(api, args);
    case 'query_events':
      return runQuery(api, args, 'raw');
    case 'query_aggregate':
      return runQuery(api, args, 'aggregate');
    case 'get_download_link':
      return downloadLink(api, args);
    case 'start_export':
      return startExport(api, args);
    case 'export_status':
      return exportStatus(api, args);
    default:
      return fail(`no tool '${name}'`, { code: 'not_found' });
  }
}

function pathOf(args: Args, aggregate: boolean): string | ToolResult {
  const id = String(args.endpoint ?? '');
  const route = routeOf(id, aggregate ? 'aggregate' : 'raw');
  if (route) return route.path;
  return fail(routeOf(id, 'raw') ? `endpoint '${id}' has no aggregate` : `no endpoint '${id}'; list_datasets names them`, { code: 'not_found' });
}

async function listDatasets(api: ApiCall, args: Args): Promise<ToolResult> {
  const filter = Object.fromEntries(
    ['family', 'protocol', 'network'].flatMap((k) => {
      const v = str(args[k]);
      return v ? [[k, v]] : [];
    }),
  );
  const r = await api('GET', `${discoveryPath('coverage')}${queryString(filter)}`);
  if (r.status !== 200) return apiError(r);
  const { coverage } = answer(coverageAnswer, r);
  const network = filter.network?.toUpperCase();
  // Every served endpoint the filters select, with what the store covers of it (possibly nothing yet).
  const datasets = servedEndpointIds()
    .flatMap((id) => {
      const d = describeEndpoint(id);
      return d ? [d] : [];
    })
    .filter((d) => (!filter.family || d.family === filter.family) && (!filter.protocol || d.protocol === filter.protocol))
    .filter((d) => !network || d.family === 'exchange' || (Array.isArray(d.networks) && d.networks.includes(network)))
    .map((d) => ({
      endpoint: d.endpoint,
      summary: d.summary,
      path: d.path,
      aggregate: d.aggregate !== undefined,
      formats: d.formats,
      ...(d.networks ? { networks: d.networks } : {}),
      coverage: coverage.filter((c) => c.dataset === d.endpoint).map(({ dataset: _d, ...rest }) => rest),
    }));
  return ok({ datasets, note: 'describe_endpoint gives the parameters, columns, range limits and cost rule of one endpoint; an empty coverage means nothing of it is stored yet.' });
}

async function listTokens(api: ApiCall, args: Args): Promise<ToolResult> {
  const r = await api('GET', discoveryPath('tokens'));
  if (r.status !== 200) return apiError(r);
  const symbol = str(args.symbol)?.toUpperCase();
  const network = str(args.network)?.toUpperCase();
  const tokens = answer(tokensAnswer, r)
    .filter((t) => !symbol || t.symbol.toUpperCase() === symbol || t.aliases.some((a) => a.toUpperCase() === symbol))
    .map((t) => (network ? { ...t, networks: network in t.networks ? { [network]: t.networks[network] } : {} } : t))
    .filter((t) => Object.keys(t.networks).length > 0);
  return ok({ tokens });
}

async function estimateCost(api: ApiCall, args: Args): Promise<ToolResult> {
  const path = pathOf(args, args.aggregate === true);
  if (typeof path !== 'string') return path;
  const r = await api('POST', CALCULATE_COST_PATH, { query: `${path}${queryString(args.params)}` });
  if (r.status !== 200) return apiError(r);
  return ok(jsonObject(r));
}

async function runQuery(api: ApiCall, args: Args, kind: 'raw' | 'aggregate'): Promise<ToolResult> {
  const path = pathOf(args, kind === 'aggregate');
  if (typeof path !== 'string') return path;
  const cap = Math.min(MAX_ROWS, Math.max(1, Number.isInteger(args.max_rows) ? Number(args.max_rows) : DEFAULT_ROWS));
  // JSON, whatever the endpoint's default: the rows are read here.
  const r = await api('GET', `${path}${queryString(args.params, { format: 'json' })}`);
  if (r.status !== 200) return apiError(r);
  const body = answer(eventsAnswer, r);
  const shown = body.events.slice(0, cap);
  return ok({
    rows: shown,
    total: body.count,
    returned: shown.length,
    ...(body.count > shown.length
      ? { note: `${shown.length} of ${body.count} rows shown; call get_download_link with the same endpoint and params (format ${LINK_FORMATS.join(' or ')}) for all of them, at the same cost` }
      : {}),
    ...(r.headers[COVERED_RANGE_HEADER] ? { covered_range: r.headers[COVERED_RANGE_HEADER] } : {}),
    ...(r.headers[DROPPED_TOKENS_HEADER] ? { dropped_tokens: r.headers[DROPPED_TOKENS_HEADER].split(',').map(decodeURIComponent) } : {}),
    ...metering(r),
  });
}

async function downloadLink(api: ApiCall, args: Args): Promise<ToolResult> {
  const path = pathOf(args, args.aggregate === true);
  if (typeof path !== 'string') return path;
  const r = await api('GET', `${path}${queryString(args.params, { link: 'true' })}`);
  if (r.status !== 200) return apiError(r);
  return ok({
    ...jsonObject(r),
    ...(r.headers[COVERED_RANGE_HEADER] ? { covered_range: r.headers[COVERED_RANGE_HEADER] } : {}),
    ...metering(r),
  });
}

const EXPORT_OPTIONS = ['format', 'compression', 'partition_blocks', 'partition_days', 'max_cost'] as const;

async function startExport(api: ApiCall, args: Args): Promise<ToolResult> {
  const path = pathOf(args, args.aggregate === true);
  if (typeof path !== 'string') return path;
  const options = Object.fromEntries(EXPORT_OPTIONS.flatMap((k) => (args[k] === undefined ? [] : [[k, args[k]]])));
  // The export's params are the query string's: lists joined with commas, as the other tools send them.
  const params = Object.fromEntries(new URLSearchParams(queryString(args.params).slice(1)));
  const r = await api('POST', EXPORTS_PATH, { endpoint: path, params, ...options });
  if (r.status !== 202 && r.status !== 200) return apiError(r);
  return ok({ ...jsonObject(r), note: 'call export_status with this id to follow it; its files are listed there once it is done' });
}

interface ManifestFile {
  name: string;
  rows: number;
  bytes: number;
  sha256: string;
  url?: string;
}

async function exportStatus(api: ApiCall, args: Args): Promise<ToolResult> {
  const id = str(args.id);
  if (!id) return fail('id is required: the export id start_export answered', { code: 'invalid_parameter' });
  const base = `${EXPORTS_PATH}/${encodeURIComponent(id)}`;
  const r = await api('GET', base);
  if (r.status !== 200) return apiError(r);
  const status = jsonObject(r);
  if (status.status !== 'done') return ok(status);
  const m = await api('GET', `${base}/manifest.json`);
  if (m.status !== 200) return apiError(m);
  const manifest = answer(manifestAnswer, m);
  return ok({
    ...status,
    columns: manifest.columns,
    files: manifest.files.map((f) => ({
      name: f.name,
      rows: f.rows,
      bytes: f.bytes,
      sha256: f.sha256,
      path: `${base}/files/${encodeURIComponent(f.name)}`,
      ...(f.url ? { url: f.url } : {}),
    })),
    note: `fetch each path from the API with the X-API-Key header (Range supported); the manifest is at ${base}/manifest.json`,
  });
}
