/** Catalog → OpenAPI 3.1 document. */
import { API_ERRORS } from '../../errors/apiError.ts';
import { accountEndpoints, type ResponseField } from '../account.ts';
import { CALCULATE_COST_ANSWER, CALCULATE_COST_BODY, CALCULATE_COST_PATH, CALCULATE_COST_SUMMARY } from '../calculateCost.ts';
import { chainEndpoints } from '../index.ts';
import type { Endpoint, Format, OutputColumn, Params } from '../types.ts';
import { FORMAT_NAMES, FORMATS, LINK_FORMATS } from '../formats.ts';
import { COVERED_RANGE_HEADER, DROPPED_TOKENS_HEADER, NEXT_CURSOR_HEADER } from '../responseHeaders.ts';
import { aggregateDocColumns } from './aggregate.ts';
import { paramSchema } from './jsonSchema.ts';
import { dataRoutes, streamRoutes, type StreamRoute } from './routes.ts';
import { discoveryRoutes, type DiscoveryKind, type DiscoveryRoute } from './discovery.ts';

const wireType = (c: OutputColumn) => (c.type === 'double' ? 'number' : c.type);

// The x- fields carry what JSON Schema cannot say, for generated forms (the explorer).
function parameters(params: Params) {
  return Object.entries(params).map(([name, p]) => ({
    name,
    in: 'query',
    required: p.required ?? false,
    description: p.description + (p.exclusiveWith?.length ? ` Not with: ${p.exclusiveWith.join(', ')}.` : ''),
    schema: paramSchema(p, false),
    ...(p.exclusiveWith?.length ? { 'x-exclusive-with': [...p.exclusiveWith] } : {}),
    ...(p.list ? { 'x-list': true } : {}),
    ...(p.networks ? { 'x-networks': [...p.networks] } : {}),
  }));
}

function fieldSchema(f: ResponseField): Record<string, unknown> {
  const schema: Record<string, unknown> =
    f.type === 'object[]'
      ? { type: 'array', items: { type: 'object', properties: Object.fromEntries((f.items ?? []).map((i) => [i.name, fieldSchema(i)])) } }
      : { type: f.nullable ? [f.type, 'null'] : f.type };
  return { ...schema, description: f.description };
}

function rowSchema(columns: readonly OutputColumn[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(columns.map((c) => [c.name, { type: [wireType(c), 'null'], description: c.description }])),
  };
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** A file answer of format `f` (CSV, Parquet): its bytes. */
const fileContent = (f: Format) => ({ schema: { type: 'string', ...(FORMATS[f].binary ? { format: 'binary' } : {}) } });

/** The answer of a data route by media type, in the order of the format table. */
function formatsContent(e: Endpoint, columns: readonly OutputColumn[]) {
  const content: Record<string, unknown> = {};
  for (const f of FORMAT_NAMES.filter((name) => e.formats.includes(name))) {
    content[FORMATS[f].mediaType] = FORMATS[f].envelope
      ? { schema: { type: 'object', properties: { status: { const: 'success' }, events: { type: 'array', items: rowSchema(columns) }, count: { type: 'integer' } } } }
      : fileContent(f);
  }
  return content;
}

const header = (description: string) => ({ description, schema: { type: 'string' } });

/** Headers of a data answer beyond the metering ones (chainq's extensions, docs/api.md). */
function dataHeaders(params: Params) {
  return {
    [COVERED_RANGE_HEADER]: header('The range the answer is complete for: blocks=FIRST-LAST or time=SINCE/UNTIL, then ; network=… or ; token=….'),
    ...('ignore_unknown_tokens' in params ? { [DROPPED_TOKENS_HEADER]: header('Tokens ignore_unknown_tokens=true dropped, percent-encoded, comma-separated.') } : {}),
    ...('cursor' in params ? { [NEXT_CURSOR_HEADER]: header('With cursor=: the cursor to pull from next (the same one when nothing was new).') } : {}),
  };
}

/** The events of a stream answer (docs/api.md, "Streams and cursors"), one line of JSON in each `data:`. */
const STREAM_EVENTS = [
  'Server-sent events; each data: line is one JSON object, each id: the cursor after the event.',
  'rows (id): {"from_block": a, "to_block": b, "events": [the raw endpoint rows]}, blocks a..b complete.',
  'undo (id): {"block_number": n, "block_hash": "0x…"}, every row of a block above n sent before is void.',
  'progress (id): {"block_number": d, "head": h, "cost": c}, after each batch and at least every 15 s.',
  'end: {"block_number": d}, the requested end is delivered; the stream closes.',
  'error: {"code": "…", "error": "…"} (quota_exceeded, cost_over_limit, internal_error); the stream closes.',
].join(' ');

function streamOperation(r: StreamRoute) {
  const e = r.raw.endpoint;
  return {
    get: {
      operationId: `stream_${e.id.replaceAll('/', '_')}`,
      summary: `${e.summary} Live, as server-sent events.`,
      tags: [`${e.family}/${e.protocol}`],
      // Its own extension key: readers of x-chainq (the explorer) list the request/response routes.
      'x-chainq-stream': { dataset: e.id, family: e.family, protocol: e.protocol, event: e.event, raw_path: r.raw.path },
      parameters: [
        ...parameters(r.params),
        { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this cursor (the last event id received); wins over the start in the URL.', schema: { type: 'string' } },
      ],
      responses: {
        200: { description: STREAM_EVENTS, content: { 'text/event-stream': { schema: { type: 'string' } } } },
        400: errorResponse('Invalid request or cursor (invalid_cursor); nothing is charged.'),
        401: errorResponse('Missing or invalid API key.'),
        429: errorResponse("The key already holds its plan's concurrent_streams."),
      },
    },
  };
}

const linkFile = Object.fromEntries(LINK_FORMATS.map((f) => [FORMATS[f].mediaType, fileContent(f)]));
const linkHeaders = {
  'repr-digest': header('sha-256=:<base64>: of the whole file (RFC 9530).'),
  etag: header('"<sha256 hex>"'),
  'accept-ranges': header('bytes'),
};

const csvBody = { 'text/csv': { schema: { type: 'string' } } };

/** Label namespaces, the /mcp endpoint: chainq's extensions that are not catalog data routes. */
function extensionPaths(): Record<string, unknown> {
  const ns = [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' } }];
  const notYours = errorResponse('No such namespace for this key (also when another key has one of that name).');
  return {
    '/v1/labels': {
      get: { summary: 'The label namespaces of the calling key. Free.', tags: ['labels'], responses: { 200: { description: '{"namespaces": [{namespace, rows, updated_at}]}' } } },
    },
    '/v1/labels/{namespace}': {
      put: {
        summary: 'Create or replace a label namespace of the calling key from CSV (address,label,category[,network]). Free. See docs/labels.md.',
        tags: ['labels'],
        parameters: ns,
        requestBody: { required: true, content: csvBody },
        responses: {
          200: { description: 'Replaced: {status, namespace, rows, updated_at}.' },
          201: { description: 'Created: {status, namespace, rows, updated_at}.' },
          400: errorResponse('invalid_body with line and reason; invalid_parameter for a bad name or too many namespaces.'),
          415: errorResponse('Not text/csv.'),
        },
      },
      get: { summary: 'The namespace as CSV, in upload order. Free.', tags: ['labels'], parameters: ns, responses: { 200: { description: 'CSV.', content: csvBody }, 404: notYours } },
      delete: { summary: 'Delete the namespace. Free.', tags: ['labels'], parameters: ns, responses: { 200: { description: '{status, namespace, deleted}' }, 404: notYours } },
    },
    '/mcp': {
      post: {
        summary:
          'MCP over Streamable HTTP (stateless, JSON answers): tools generated from the catalog, each data call metered like its HTTP request. X-API-Key or Authorization: Bearer. See docs/mcp.md.',
        tags: ['mcp'],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' } } } },
        responses: { 200: { description: 'The JSON-RPC answer.' }, 401: errorResponse('Missing or invalid API key.') },
      },
    },
  };
}

/** A discovery route: free, no body to describe beyond what it lists; coverage takes filters. */
function discoveryOperation(r: DiscoveryRoute) {
  const params = r.kind === 'coverage' ? r.params : null;
  return {
    get: {
      summary: r.summary,
      tags: ['discovery'],
      ...(params ? { parameters: parameters(params) } : {}),
      responses: { 200: { description: r.answer }, ...(params ? { 400: errorResponse('Unknown parameter or value.') } : {}) },
    },
  };
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const r of dataRoutes()) {
    const e = r.endpoint;
    paths[r.path] = {
      get: {
        operationId: `${r.kind}_${e.id.replaceAll('/', '_')}`,
        summary: r.kind === 'aggregate' ? `${e.summary} Bucketed.` : e.summary,
        tags: [`${e.family}/${e.protocol}`],
        'x-chainq': {
          dataset: e.id,
          kind: r.kind,
          family: e.family,
          protocol: e.protocol,
          event: e.event,
          formats: [...e.formats],
          default_format: e.defaultFormat,
          ...(e.family === 'exchange' ? { max_days: e.maxDays } : { networks: [...e.networks] }),
        },
        parameters: parameters(r.params),
        responses: {
          200: {
            description: 'Rows, in the requested format.',
            headers: dataHeaders(r.params),
            content: formatsContent(e, r.kind === 'aggregate' && e.family !== 'exchange' ? aggregateDocColumns(e) : e.columns),
          },
          400: errorResponse('Invalid request; nothing is charged.'),
          401: errorResponse('Missing or invalid API key.'),
          ...('cursor' in r.params ? { 409: errorResponse("cursor_reorged: the cursor's block was rolled back (block_number, block_hash, cursor to continue); nothing is charged.") } : {}),
        },
      },
    };
  }
  for (const r of streamRoutes()) paths[r.path] = streamOperation(r);
  // The discovery routes, each kind where the document has always had it
  // (the server answers /openapi.json with these bytes): per protocol here,
  // protocols and coverage after the account paths, tokens last.
  const discovery = discoveryRoutes();
  const documentDiscovery = (pick: (r: DiscoveryRoute) => boolean) => {
    for (const r of discovery.filter(pick)) paths[r.path] = discoveryOperation(r);
  };
  const kinds =
    (...k: DiscoveryKind[]) =>
    (r: DiscoveryRoute) =>
      k.includes(r.kind);
  documentDiscovery((r) => 'protocol' in r);
  paths['/v1/links/{id}'] = {
    get: {
      summary: 'Download a link-mode result. Needs no API key; the URL is the credential and expires (410 afterwards).',
      tags: ['links'],
      security: [],
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'Range', in: 'header', required: false, description: 'One byte range (bytes=first-last, first-, -suffix) to resume a download.', schema: { type: 'string' } },
        { name: 'If-Range', in: 'header', required: false, description: 'The ETag ("<sha256 hex>"): the range is served only if the file is still this one.', schema: { type: 'string' } },
      ],
      responses: {
        200: { description: 'The result file.', headers: linkHeaders, content: linkFile },
        206: { description: 'The requested byte range (Content-Range).', headers: linkHeaders, content: linkFile },
        404: errorResponse('No such link.'),
        410: errorResponse('The link expired.'),
        416: errorResponse('The range starts past the end of the file.'),
      },
    },
  };
  for (const a of accountEndpoints) {
    paths[a.path] = {
      get: {
        operationId: a.id.replaceAll('/', '_'),
        summary: a.summary,
        tags: ['account'],
        parameters: parameters(a.params),
        responses: {
          200: { description: a.summary, content: { 'application/json': { schema: { type: 'object', properties: Object.fromEntries(a.fields.map((f) => [f.name, fieldSchema(f)])) } } } },
          400: errorResponse('Invalid request.'),
          401: errorResponse('Missing or invalid API key.'),
        },
      },
    };
  }
  documentDiscovery(kinds('protocols', 'coverage'));
  Object.assign(paths, extensionPaths());
  paths[CALCULATE_COST_PATH] = {
    post: {
      summary: CALCULATE_COST_SUMMARY,
      tags: ['metering'],
      requestBody: { required: true, content: { 'application/json': { schema: CALCULATE_COST_BODY } } },
      responses: {
        200: { description: 'The price.', content: { 'application/json': { schema: CALCULATE_COST_ANSWER } } },
        400: errorResponse('The body or the priced query is invalid: the error the query itself would get.'),
        401: errorResponse('Missing or invalid API key.'),
        404: errorResponse('No endpoint at the priced path.'),
        415: errorResponse('The body is not application/json.'),
      },
    },
  };
  documentDiscovery(kinds('tokens'));
  return {
    openapi: '3.1.0',
    info: { title: 'chainq', version: '1', description: 'Historical blockchain events and exchange market data. Every /v1 request needs X-API-Key.' },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['status', 'error', 'code'],
          properties: { status: { const: 'error' }, error: { type: 'string' }, code: { enum: Object.keys(API_ERRORS) } },
        },
      },
    },
    security: [{ apiKey: [] }],
    paths,
    'x-chain-endpoints': chainEndpoints.length,
  };
}
