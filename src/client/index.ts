/**
 * The chainq TypeScript client (`chainq/client`).
 *
 *   const cq = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.CHAINQ_KEY! });
 *   const q = cq.evmErc20Transfer({ network: 'ETH', token: 'USDC', block_start: 23_910_000, block_end: 23_910_100 });
 *   (await q.cost()).cost;                     // priced, not charged
 *   const { events } = await q.json();         // typed rows
 *   await cq.evmErc20Transfer({ ...p, format: 'parquet' }).toFile('out.parquet');   // streamed to disk
 *   for await (const chunk of q.stream()) …   // or as an async iterator of bytes
 *
 * One typed method per served data route is generated from the catalog
 * (routes.generated.ts). A 429 is retried by the client rule of docs/metering.md
 * ("The per-minute limit"): wait
 * Retry-After seconds (60 when the header is missing), doubling the wait on
 * each repeat, up to `maxRetries`. Every other failure becomes a typed error.
 */
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CoverageEntry, CoverageFilter } from '../catalog/coverage.ts';
import { backoffDelay } from '../utils/backoff.ts';
import { sleep as waitMs } from '../utils/sleep.ts';
import { errorFrom, IncompleteResponseError, retryAfterSeconds } from './errors.ts';
import { ExportJob, exportRequest, type ExportAccepted, type ExportOptions, type ExportStatus, type ExportTransport } from './exports.ts';
import { PATHS, ROUTES, type EvmProtocol, type Protocol, type RouteTypes, type Usage, type UsageParams } from './routes.generated.ts';
import { streamEvents, type StreamEvent, type StreamOptions } from './stream.ts';

export * from './errors.ts';
export * from './exports.ts';
export { InvalidStreamEventError, type EndEvent, type ProgressEvent, type RowsEvent, type StreamEvent, type StreamOptions, type UndoEvent } from './stream.ts';
export type * from './routes.generated.ts';
export type { CoverageEntry, CoverageFilter } from '../catalog/coverage.ts';
export { ROUTES } from './routes.generated.ts';

export interface ClientOptions {
  /** Where the server is, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** The API key (`cq_…`), sent as X-API-Key. */
  readonly apiKey: string;
  /** How many times a 429 is retried before RateLimitedError is thrown. Default 5. */
  readonly maxRetries?: number;
  /** The wait when a 429 carries no Retry-After, in seconds. Default 60 (docs/metering.md, "The per-minute limit"). */
  readonly defaultRetryAfterSeconds?: number;
  /** The longest single wait, in milliseconds. Default 15 minutes. */
  readonly maxRetryDelayMs?: number;
  /** How to wait; injectable so that tests need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The fetch implementation. Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

/** The metering headers of a response (docs/metering.md, "Headers on every response"). */
export interface Metering {
  /** Requests allowed per minute (2^53-1: no limit). */
  readonly limit: number;
  /** Monthly blocks left after this request. */
  readonly remaining: number;
  /** Blocks this request costs (charged once its body is complete). */
  readonly cost: number;
  /** Seconds until the per-minute window resets. */
  readonly reset: number;
  readonly requestId: string | null;
}

/** The cost estimate (docs/metering.md, "Previewing a cost"). */
export interface CostEstimate {
  readonly query: string;
  readonly cost: number;
  readonly quota_remaining: number;
  readonly quota_remaining_after: number;
  readonly breakdown: Readonly<Record<string, string | number | boolean>> & { readonly formula: string };
}

/** The JSON envelope of a data response. */
export interface DataEnvelope<Row> {
  readonly status: 'success';
  readonly events: Row[];
  readonly count: number;
}

export interface ChainqResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly metering: Metering;
  readonly body: ReadableStream<Uint8Array>;
}

type ParamValue = string | number | boolean | readonly string[] | readonly number[] | undefined;

/** Query-string of a parameter object: lists joined with commas, undefined left out. */
export function toSearch(params: Readonly<Record<string, ParamValue>>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Parameters as the strings of a query string: lists joined with commas, undefined left out. */
function stringParams(params: object): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(toSearch(Object.fromEntries(Object.entries(params)))));
}

/** The wait before retry number `attempt` (0 for the first) after a 429. */
export function retryDelayMs(retryAfter: string | null, attempt: number, opts: { defaultRetryAfterSeconds?: number; maxRetryDelayMs?: number } = {}): number {
  const seconds = retryAfterSeconds(retryAfter) ?? opts.defaultRetryAfterSeconds ?? 60;
  return backoffDelay({ baseMs: Math.max(1, seconds) * 1000, maxMs: opts.maxRetryDelayMs ?? 15 * 60_000 }, attempt + 1);
}

/** A per-protocol discovery path of PATHS, for one protocol id (evm/erc20). */
function ofProtocol(template: string, id: string): string {
  const [family = '', protocol = ''] = id.split('/');
  return template.replace('{family}', family).replace('{protocol}', protocol);
}

function meteringOf(h: Headers): Metering {
  const n = (name: string) => Number(h.get(name) ?? 0);
  return { limit: n('x-ratelimit-limit'), remaining: n('x-ratelimit-remaining'), cost: n('x-request-cost'), reset: n('x-ratelimit-reset'), requestId: h.get('x-request-id') };
}

/** A data query, ready to be priced, read as JSON, streamed, or saved. Each call sends one request. */
export class Query<Row> {
  /** The metering headers of the last response this query received. */
  metering: Metering | null = null;

  constructor(
    private readonly client: Transport,
    /** The path and query string, e.g. `/v1/evm/erc20/events/transfer?network=ETH&…`. */
    readonly target: string,
    private readonly format: string,
  ) {}

  /** Prices the query without running it or charging anything. */
  cost(): Promise<CostEstimate> {
    return this.client.cost(this.target);
  }

  /** Sends the query; a non-2xx answer is thrown as a typed error. */
  async response(): Promise<ChainqResponse> {
    const r = await this.client.send(this.target);
    this.metering = r.metering;
    return r;
  }

  /** The parsed JSON envelope; the query must be `format: 'json'` (the default on chain endpoints). */
  async json(): Promise<DataEnvelope<Row>> {
    if (this.format !== 'json') throw new TypeError(`json() needs format json, this query asks for ${this.format}; use stream() or toFile()`);
    const chunks: Buffer[] = [];
    for await (const c of this.stream()) chunks.push(Buffer.from(c));
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as DataEnvelope<Row>;
  }

  /** The response body as it arrives, in the query's format. Throws IncompleteResponseError if it breaks off. */
  async *stream(): AsyncGenerator<Uint8Array> {
    const r = await this.response();
    const reader = r.body.getReader();
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (e) {
          throw new IncompleteResponseError(r.metering.requestId, { cause: e });
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      reader.releaseLock();
      await r.body.cancel().catch(() => undefined);
    }
  }

  /** Streams the body into `file`, never holding it in memory. */
  async toFile(file: string): Promise<{ bytes: number; metering: Metering }> {
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        cb(null, chunk);
      },
    });
    await pipeline(Readable.from(this.stream()), count, fs.createWriteStream(file));
    return { bytes, metering: this.metering! };
  }
}

type RouteMethods = {
  [K in keyof RouteTypes]: (params: RouteTypes[K]['params']) => Query<RouteTypes[K]['row']>;
};

interface SendInit {
  method?: string;
  body?: string;
  /** Content-Type of `body`; JSON by default. */
  contentType?: string;
  headers?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

/** The raw event endpoints of the chains (EVM, Tron, Bitcoin): the ones that stream and take a cursor. */
export type EventEndpoint = {
  [K in keyof typeof ROUTES]: (typeof ROUTES)[K]['kind'] extends 'raw' ? ((typeof ROUTES)[K]['path'] extends `/v1/${'evm' | 'tron' | 'btc'}/${string}/events/${string}` ? K : never) : never;
}[keyof typeof ROUTES];

/** A stream's parameters: the endpoint's filters with a start (or none, given a cursor), an optional end and finality. */
export type StreamParams<K extends EventEndpoint> = Omit<RouteTypes[K]['params'], 'format' | 'link'> & {
  /** `final`: only blocks past the network's finality depth, never undone. Default `latest`. */
  finality?: 'latest' | 'final';
};

/** A cursor pull's parameters: the endpoint's filters; the cursor stands for the start. */
export type PullParams<K extends EventEndpoint> = Omit<RouteTypes[K]['params'], 'format' | 'link' | 'block_start' | 'since'>;

export interface PullResult<Row> {
  /** The rows after the cursor, up to the format's range limit or the delivered head. */
  readonly events: Row[];
  /** Pull again from here (X-Chainq-Next-Cursor). */
  readonly nextCursor: string;
  readonly metering: Metering;
}

interface Transport {
  send(target: string, init?: SendInit): Promise<ChainqResponse>;
  cost(query: string): Promise<CostEstimate>;
}

export interface ClientCore extends Transport {
  /** Any /v1 path with parameters, for routes newer than this client. */
  query<Row = Record<string, unknown>>(path: string, params?: Readonly<Record<string, ParamValue>>): Query<Row>;
  /** GET a discovery path and parse its JSON. */
  get<T>(path: string): Promise<T>;
  protocols(): Promise<Protocol[]>;
  tokens(): Promise<{ symbol: string; name: string; aliases: string[]; [field: string]: unknown }[]>;
  networks(protocol: EvmProtocol): Promise<string[]>;
  eventTypes(protocol: EvmProtocol): Promise<string[]>;
  extraArgs(protocol: EvmProtocol): Promise<Record<string, { description: string; type: string; required: boolean; enum?: (string | number)[] }>>;
  aggregateSchema(protocol: Protocol): Promise<Record<string, unknown>>;
  /** The key's plan, limits, blocks used and left this month, and its latest charges (free). */
  usage(params?: UsageParams): Promise<Usage>;
  /** What is covered (queryable), per dataset and network; free. */
  coverage(filter?: CoverageFilter): Promise<{ coverage: CoverageEntry[] }>;
  /** Your own label namespaces (docs/labels.md); free. Use one with `wallet_namespace` on any label or category filter. */
  readonly labels: LabelNamespaces;
  /**
   * Starts an export job: the query `params` of `endpoint` (a method name such as
   * `evmErc20Transfer`, or its path) written as partition files on the server.
   * Refusals (budget, `maxCost`, validation) are thrown as typed errors, uncharged.
   */
  export(endpoint: keyof RouteTypes | `/v1/${string}`, params: Readonly<Record<string, ParamValue>>, options?: ExportOptions): Promise<ExportJob>;
  /** An export started earlier, by its id. */
  exportJob(id: string): ExportJob;
  /** The key's exports, newest first (free). */
  exports(): Promise<{ exports: ExportStatus[] }>;
  /**
   * The live stream of a raw event endpoint (docs/api.md, "Streams and cursors"): rows, undo, progress and end events,
   * each with its cursor. A dropped connection is resumed from the last cursor by itself; a 4xx or an `error` event is
   * thrown as a typed error. Breaking out of the loop, or aborting `signal`, closes the stream.
   */
  stream<K extends EventEndpoint>(endpoint: K, params: StreamParams<K>, opts?: StreamOptions): AsyncGenerator<StreamEvent<RouteTypes[K]['row']>>;
  /** The rows after `cursor` and the cursor to pull from next. A rolled-back cursor throws CursorReorgedError (409). */
  pull<K extends EventEndpoint>(endpoint: K, params: PullParams<K>, opts: { readonly cursor: string }): Promise<PullResult<RouteTypes[K]['row']>>;
}

export interface LabelNamespace {
  readonly namespace: string;
  readonly rows: number;
  readonly updated_at: string;
}

export interface LabelNamespaces {
  list(): Promise<{ namespaces: LabelNamespace[] }>;
  /** Creates or replaces the namespace from CSV `address,label,category[,network]` with its header row. */
  put(namespace: string, csv: string): Promise<LabelNamespace & { status: 'success' }>;
  /** The namespace as CSV. */
  get(namespace: string): Promise<string>;
  delete(namespace: string): Promise<{ status: 'success'; namespace: string; deleted: true }>;
}

export type ChainqClient = ClientCore & RouteMethods;

export function createClient(opts: ClientOptions): ChainqClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? globalThis.fetch;
  const sleep = opts.sleep ?? waitMs;
  const maxRetries = opts.maxRetries ?? 5;

  async function send(target: string, init: SendInit = {}): Promise<ChainqResponse> {
    const headers: Record<string, string> = { ...init.headers, 'x-api-key': opts.apiKey };
    if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    for (let attempt = 0; ; attempt++) {
      const res = await doFetch(`${base}${target}`, {
        method: init.method ?? 'GET',
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      if (res.ok && res.body) return { status: res.status, headers: res.headers, metering: meteringOf(res.headers), body: res.body };
      const text = await res.text();
      if (res.status === 429 && attempt < maxRetries) {
        await sleep(retryDelayMs(res.headers.get('retry-after'), attempt, opts));
        if (init.signal?.aborted) throw init.signal.reason;
        continue;
      }
      throw errorFrom(res.status, text, res.headers);
    }
  }

  async function readJson<T>(r: ChainqResponse): Promise<T> {
    return (await new Response(r.body).json()) as T;
  }

  async function* bodyOf(target: string): AsyncGenerator<Uint8Array> {
    yield* new Query<never>(core, target, 'file').stream();
  }
  const exportApi: ExportTransport = {
    json: async (target, init) => readJson(await send(target, init)),
    body: bodyOf,
  };

  const core: ClientCore = {
    send,
    async cost(query) {
      return readJson<CostEstimate>(await send(PATHS.calculateCost, { method: 'POST', body: JSON.stringify({ query }) }));
    },
    query<Row>(path: string, params: Readonly<Record<string, ParamValue>> = {}) {
      return new Query<Row>(core, `${path}${toSearch(params)}`, String(params.format ?? 'json'));
    },
    async get<T>(path: string) {
      return readJson<T>(await send(path));
    },
    protocols: () => core.get(PATHS.protocols),
    tokens: () => core.get(PATHS.tokens),
    networks: (p) => core.get(ofProtocol(PATHS.networks, `evm/${p}`)),
    eventTypes: (p) => core.get(ofProtocol(PATHS.eventTypes, `evm/${p}`)),
    extraArgs: (p) => core.get(ofProtocol(PATHS.extraArgs, `evm/${p}`)),
    aggregateSchema: (p) => core.get(ofProtocol(PATHS.aggregateSchema, p)),
    labels: {
      list: () => core.get('/v1/labels'),
      put: async (ns, csv) => readJson(await send(`/v1/labels/${encodeURIComponent(ns)}`, { method: 'PUT', body: csv, contentType: 'text/csv' })),
      get: async (ns) => new Response((await send(`/v1/labels/${encodeURIComponent(ns)}`)).body).text(),
      delete: async (ns) => readJson(await send(`/v1/labels/${encodeURIComponent(ns)}`, { method: 'DELETE' })),
    },
    async export(endpoint, params, options = {}) {
      const path = Object.entries(ROUTES).find(([name]) => name === endpoint)?.[1].path ?? endpoint;
      const accepted = await readJson<ExportAccepted>(await send('/v1/exports', { method: 'POST', body: JSON.stringify(exportRequest(path, params, options)) }));
      return new ExportJob(exportApi, accepted.id, accepted);
    },
    exportJob: (id) => new ExportJob(exportApi, id),
    exports: () => core.get('/v1/exports'),
    usage: (params = {}) => core.get(`${PATHS.usage}${toSearch({ ...params })}`),
    stream(endpoint, params, streamOpts) {
      const transport = { open: (target: string, headers: Readonly<Record<string, string>>, signal: AbortSignal | undefined) => send(target, { headers, ...(signal ? { signal } : {}) }), sleep };
      return streamEvents(transport, `${ROUTES[endpoint].path}/stream`, stringParams(params), streamOpts);
    },
    async pull(endpoint, params, { cursor }) {
      const r = await send(`${ROUTES[endpoint].path}${toSearch({ ...params, format: 'json', cursor })}`);
      const nextCursor = r.headers.get('x-chainq-next-cursor');
      const body = await readJson<DataEnvelope<RouteTypes[typeof endpoint]['row']>>(r);
      if (nextCursor === null) throw new TypeError('the server answered a cursor pull without X-Chainq-Next-Cursor');
      return { events: body.events, nextCursor, metering: r.metering };
    },
    coverage: (filter = {}) => core.get(`${PATHS.coverage}${toSearch(Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as Record<string, string>)}`),
  };

  const methods = {} as Record<string, (params: Readonly<Record<string, ParamValue>>) => Query<unknown>>;
  for (const [name, route] of Object.entries(ROUTES)) {
    methods[name] = (params) => new Query(core, `${route.path}${toSearch(params)}`, String(params.format ?? route.defaultFormat));
  }
  return Object.assign(core, methods) as unknown as ChainqClient;
}
