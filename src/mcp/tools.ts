/**
 * The MCP tools, derived from the catalog in this one place: their names,
 * descriptions and input schemas (the catalog's parameter schema), and the
 * endpoint descriptions `describe_endpoint` answers. Adding an endpoint to
 * the catalog adds it to every tool.
 */
import { CALCULATE_COST_PATH } from '../catalog/calculateCost.ts';
import { publicAggregateSchema } from '../catalog/derive/aggregate.ts';
import { paramSchema } from '../catalog/derive/jsonSchema.ts';
import { dataRoutes, type DataRoute } from '../catalog/derive/routes.ts';
import { rangeLimit } from '../catalog/formats.ts';
import type { Endpoint, ParamDef } from '../catalog/types.ts';
import { AGGREGATE_DISCOUNT, MIN_BLOCK_COST } from '../query/cost.ts';

export type ToolName = 'list_datasets' | 'list_tokens' | 'describe_endpoint' | 'estimate_cost' | 'query_events' | 'query_aggregate' | 'get_download_link' | 'start_export' | 'export_status';

export interface ToolDef {
  readonly name: ToolName;
  readonly description: string;
  readonly inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties?: boolean };
}

/** Rows a query tool returns inline by default, and at most. */
export const DEFAULT_ROWS = 50;
export const MAX_ROWS = 500;

type Schema = Record<string, unknown>;

/**
 * One `params` schema for a set of routes: every parameter any of them takes,
 * with its catalog schema. Where routes differ (a network list, a format
 * list), the accepted values are the union; `describe_endpoint` and the
 * API's own validation hold each endpoint to its exact set.
 */
function paramsSchema(routes: readonly DataRoute[], drop: readonly string[]): Schema {
  const properties: Record<string, Schema> = {};
  for (const r of routes) {
    for (const [name, p] of Object.entries(r.params)) {
      if (drop.includes(name)) continue;
      const s = paramSchema(p, false);
      const seen = properties[name];
      if (!seen) {
        properties[name] = s;
        continue;
      }
      if (Array.isArray(seen.enum) && Array.isArray(s.enum)) seen.enum = [...new Set<unknown>([...seen.enum, ...s.enum])];
      else delete seen.enum;
      if (seen.default !== s.default) delete seen.default;
    }
  }
  return {
    type: 'object',
    description: 'The query parameters of the endpoint, as in the HTTP API; describe_endpoint lists exactly which it takes and their rules.',
    properties,
    additionalProperties: false,
  };
}

const ids = (routes: readonly DataRoute[]) => [...new Set(routes.map((r) => r.endpoint.id))];

/** The endpoint-id schema of a tool taking one of these routes. */
const endpointSchema = (list: readonly DataRoute[]) => ({ type: 'string', enum: ids(list), description: 'Endpoint id, as list_datasets names it (family/protocol/event).' });

const MAX_COST_NOTE = 'Pass params.max_cost to refuse a query that would cost more than you accept.';

/** The free tools that say what can be queried. */
function discoveryTools(routes: readonly DataRoute[]): ToolDef[] {
  return [
    {
      name: 'list_datasets',
      description: 'What can be queried: every endpoint (family, protocol, event, networks or venue tokens, formats, whether it aggregates) with the block or time ranges the store covers. Free.',
      inputSchema: {
        type: 'object',
        properties: {
          family: { type: 'string', enum: [...new Set(routes.map((r) => r.endpoint.family))], description: 'Only this family.' },
          protocol: { type: 'string', enum: [...new Set(routes.map((r) => r.endpoint.protocol))], description: 'Only this protocol.' },
          network: { type: 'string', description: 'Only this network (ETH, ARB, TRON, BTC…) or venue token (BTC…).' },
        },
        additionalProperties: false,
      },
    },
    {
      name: 'list_tokens',
      description: 'Token symbols the token parameters accept, with their contract address and decimals per network. Free.',
      inputSchema: {
        type: 'object',
        properties: {
          symbol: { type: 'string', description: 'Only this symbol (case-insensitive).' },
          network: { type: 'string', description: 'Only deployments on this network.' },
        },
        additionalProperties: false,
      },
    },
    {
      name: 'describe_endpoint',
      description: 'One endpoint in full: its parameters with their rules, its columns, range limits per format, cost rule and aggregate schema. Free.',
      inputSchema: { type: 'object', properties: { endpoint: endpointSchema(routes) }, required: ['endpoint'], additionalProperties: false },
    },
  ];
}

/** The tools that price, run or download one query. */
function queryTools(routes: readonly DataRoute[]): ToolDef[] {
  const raw = routes.filter((r) => r.kind === 'raw');
  const agg = routes.filter((r) => r.kind === 'aggregate');
  const maxRows = {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ROWS,
    default: DEFAULT_ROWS,
    description: `Rows to return inline (at most ${MAX_ROWS}); the total is always given, and get_download_link serves the whole result.`,
  };
  return [
    {
      name: 'estimate_cost',
      description: `The price in blocks of a query, without running it or charging it (POST ${CALCULATE_COST_PATH}), with the budget left. Free.`,
      inputSchema: {
        type: 'object',
        properties: {
          endpoint: endpointSchema(routes),
          aggregate: { type: 'boolean', default: false, description: 'Price the aggregate (bucketed) query instead of raw events.' },
          params: paramsSchema(routes, ['link']),
        },
        required: ['endpoint', 'params'],
        additionalProperties: false,
      },
    },
    {
      name: 'query_events',
      description: `Run a raw event query and return its rows (JSON), charged like the HTTP request; the result states its cost. ${MAX_COST_NOTE}`,
      inputSchema: {
        type: 'object',
        properties: { endpoint: endpointSchema(raw), params: paramsSchema(raw, ['format', 'link']), max_rows: maxRows },
        required: ['endpoint', 'params'],
        additionalProperties: false,
      },
    },
    {
      name: 'query_aggregate',
      description: `Run a bucketed aggregate (group_by, period) over an endpoint and return its rows, charged like the HTTP request; the result states its cost. ${MAX_COST_NOTE}`,
      inputSchema: {
        type: 'object',
        properties: { endpoint: endpointSchema(agg), params: paramsSchema(agg, ['format', 'link']), max_rows: maxRows },
        required: ['endpoint', 'params'],
        additionalProperties: false,
      },
    },
    {
      name: 'get_download_link',
      description: `Run a query into a CSV or Parquet file and return a download URL (no key needed, expires) with the file's SHA-256 and size: for results too large to read inline. Charged like the query. ${MAX_COST_NOTE}`,
      inputSchema: {
        type: 'object',
        properties: {
          endpoint: endpointSchema(routes),
          aggregate: { type: 'boolean', default: false, description: 'Download the aggregate instead of raw events.' },
          params: paramsSchema(routes, ['link']),
        },
        required: ['endpoint', 'params'],
        additionalProperties: false,
      },
    },
  ];
}

/** The tools that start and follow an export job. */
function exportTools(routes: readonly DataRoute[]): ToolDef[] {
  return [
    {
      name: 'start_export',
      description:
        'Start an export job: the whole result of a query written on the server as Parquet or CSV files, one per partition of blocks (or days for venues), ' +
        `for results too large for one download. Priced and charged like the query; answers the export id at once. Follow it with export_status. Pass max_cost to refuse an export that would cost more than you accept.`,
      inputSchema: {
        type: 'object',
        properties: {
          endpoint: endpointSchema(routes),
          aggregate: { type: 'boolean', default: false, description: 'Export the aggregate instead of raw events.' },
          params: paramsSchema(routes, ['format', 'link', 'max_cost']),
          format: { type: 'string', enum: ['parquet', 'csv'], default: 'parquet', description: 'File format.' },
          compression: { type: 'string', enum: ['gzip'], description: 'CSV only: gzip each file.' },
          partition_blocks: { type: 'integer', minimum: 1, default: 100_000, description: 'Blocks per file (block endpoints).' },
          partition_days: { type: 'integer', minimum: 1, default: 1, description: 'Days per file (venue endpoints).' },
          max_cost: { type: 'integer', minimum: 0, description: 'Refuse the export, uncharged, if it would cost more blocks than this.' },
        },
        required: ['endpoint', 'params'],
        additionalProperties: false,
      },
    },
    {
      name: 'export_status',
      description:
        'The state of an export job started with start_export: status, partitions done of the total, rows, bytes, blocks charged and time left; ' +
        "once done, its files with their rows, size, SHA-256 and the path to fetch each with the caller's key. Free.",
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', description: 'The export id start_export answered (exp_…).' } },
        required: ['id'],
        additionalProperties: false,
      },
    },
  ];
}

export function toolDefs(): ToolDef[] {
  const routes = dataRoutes();
  return [...discoveryTools(routes), ...queryTools(routes), ...exportTools(routes)];
}

/** Ids of every served endpoint, in catalog order. */
export function servedEndpointIds(): string[] {
  return ids(dataRoutes());
}

/** The route of a tool call, or null when the endpoint has no such route. */
export function routeOf(id: string, kind: DataRoute['kind']): DataRoute | null {
  return dataRoutes().find((r) => r.endpoint.id === id && r.kind === kind) ?? null;
}

function paramRules(p: ParamDef): Record<string, unknown> {
  return {
    type: p.type,
    required: p.required ?? false,
    description: p.description,
    ...(p.enum ? { enum: [...p.enum] } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.minimum !== undefined ? { minimum: p.minimum } : {}),
    ...(p.list ? { list: 'comma-separated values accepted' } : {}),
    ...(p.exclusiveWith?.length ? { not_with: [...p.exclusiveWith] } : {}),
    ...(p.networks ? { only_on_networks: [...p.networks] } : {}),
  };
}

function rangeLimits(e: Endpoint): Record<string, unknown> {
  if (e.family === 'exchange') return { max_days: e.maxDays, range: 'since/until (time only)' };
  const out: Record<string, unknown> = {};
  for (const f of e.formats) {
    const byNetwork = Object.fromEntries(e.networks.map((n) => [n, rangeLimit(f, n)]));
    const distinct = new Set(Object.values(byNetwork).map((l) => JSON.stringify(l)));
    const [first] = e.networks;
    out[f] = distinct.size === 1 && first !== undefined ? rangeLimit(f, first) : byNetwork;
  }
  return { per_format: out, range: 'block_start/block_end (inclusive) or since/until' };
}

function costRule(e: Endpoint): string {
  if (e.cost.kind === 'days') {
    return `days × ${e.cost.perDay} per day${e.cost.minimum ? `, at least ${e.cost.minimum}` : ''} (days = ceil(range ÷ 1 day), at least 1)`;
  }
  return `max(${MIN_BLOCK_COST}, round(block_range × network discount)); aggregates × ${AGGREGATE_DISCOUNT}; time ranges are priced by the network's blocks per day; see estimate_cost`;
}

/** What describe_endpoint answers for one endpoint id. */
export function describeEndpoint(id: string): Record<string, unknown> | null {
  const routes = dataRoutes().filter((r) => r.endpoint.id === id);
  const raw = routes.find((r) => r.kind === 'raw');
  if (!raw) return null;
  const e = raw.endpoint;
  const aggregate = routes.find((r) => r.kind === 'aggregate');
  return {
    endpoint: e.id,
    summary: e.summary,
    path: raw.path,
    family: e.family,
    protocol: e.protocol,
    event: e.event,
    ...(e.family === 'exchange' ? {} : { networks: [...e.networks] }),
    formats: [...e.formats],
    parameters: Object.fromEntries(Object.entries(raw.params).map(([n, p]) => [n, paramRules(p)])),
    columns: e.columns.map((c) => ({ name: c.name, type: c.type, description: c.description })),
    ...(e.family === 'exchange' ? {} : { verbose_columns: e.verboseColumns.map((c) => ({ name: c.name, type: c.type, description: c.description })) }),
    range_limits: rangeLimits(e),
    cost_rule: costRule(e),
    ...(aggregate && e.family !== 'exchange'
      ? {
          aggregate: {
            path: aggregate.path,
            parameters: Object.fromEntries(
              Object.entries(aggregate.params)
                .filter(([n]) => !(n in raw.params))
                .map(([n, p]) => [n, paramRules(p)]),
            ),
            schema: publicAggregateSchema(e),
          },
        }
      : {}),
  };
}
