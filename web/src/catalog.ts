/**
 * The explorer's model of the API, read from the server's own /openapi.json
 * (which the server derives from its catalog), so the page never describes an
 * endpoint the server does not serve, nor misses one it does.
 */

export type ParamKind = 'string' | 'integer' | 'number' | 'boolean';

export interface Param {
  readonly name: string;
  readonly type: ParamKind;
  readonly required: boolean;
  readonly description: string;
  readonly enum?: readonly (string | number)[];
  readonly default?: string | number | boolean;
  readonly minimum?: number;
  readonly exclusiveWith: readonly string[];
  readonly list: boolean;
  /** Only accepted on these networks. */
  readonly networks?: readonly string[];
}

export interface Route {
  readonly path: string;
  readonly kind: 'raw' | 'aggregate';
  /** Catalog id, also the coverage dataset: `evm/erc20/transfer`. */
  readonly dataset: string;
  readonly family: string;
  readonly protocol: string;
  readonly event: string;
  readonly summary: string;
  readonly formats: readonly string[];
  readonly defaultFormat: string;
  readonly networks?: readonly string[];
  readonly maxDays?: number;
  readonly params: readonly Param[];
}

export interface Catalog {
  readonly routes: readonly Route[];
  /** Paths the server answers besides the data routes (coverage, usage…). */
  readonly paths: ReadonlySet<string>;
}

interface OpenApiParam {
  name: string;
  required?: boolean;
  description?: string;
  schema?: { type?: ParamKind; enum?: (string | number)[]; default?: string | number | boolean; minimum?: number };
  'x-exclusive-with'?: string[];
  'x-list'?: boolean;
  'x-networks'?: string[];
}

interface OpenApiOperation {
  summary?: string;
  parameters?: OpenApiParam[];
  'x-chainq'?: {
    dataset: string;
    kind: 'raw' | 'aggregate';
    family: string;
    protocol: string;
    event: string;
    formats: string[];
    default_format: string;
    networks?: string[];
    max_days?: number;
  };
}

export interface OpenApiDocument {
  paths: Record<string, { get?: OpenApiOperation; post?: OpenApiOperation }>;
}

/** The "Not with: …" sentence OpenAPI appends for readers without x-exclusive-with; the form shows it apart. */
const stripNotWith = (text: string) => text.replace(/ Not with: [^.]*\.$/, '');

function paramOf(p: OpenApiParam): Param {
  const s = p.schema ?? {};
  return {
    name: p.name,
    type: s.type ?? 'string',
    required: p.required ?? false,
    description: stripNotWith(p.description ?? ''),
    ...(s.enum ? { enum: s.enum } : {}),
    ...(s.default !== undefined ? { default: s.default } : {}),
    ...(s.minimum !== undefined ? { minimum: s.minimum } : {}),
    exclusiveWith: p['x-exclusive-with'] ?? [],
    list: p['x-list'] ?? false,
    ...(p['x-networks'] ? { networks: p['x-networks'] } : {}),
  };
}

export function catalogFromOpenApi(doc: OpenApiDocument): Catalog {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    const x = op?.['x-chainq'];
    if (!op || !x) continue;
    routes.push({
      path,
      kind: x.kind,
      dataset: x.dataset,
      family: x.family,
      protocol: x.protocol,
      event: x.event,
      summary: op.summary ?? '',
      formats: x.formats,
      defaultFormat: x.default_format,
      ...(x.networks ? { networks: x.networks } : {}),
      ...(x.max_days !== undefined ? { maxDays: x.max_days } : {}),
      params: (op.parameters ?? []).map(paramOf),
    });
  }
  return { routes, paths: new Set(Object.keys(doc.paths)) };
}

export const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

export const families = (c: Catalog) => unique(c.routes.map((r) => r.family));
export const protocolsOf = (c: Catalog, family: string) => unique(c.routes.filter((r) => r.family === family).map((r) => r.protocol));
export const eventsOf = (c: Catalog, family: string, protocol: string) => unique(c.routes.filter((r) => r.family === family && r.protocol === protocol).map((r) => r.event));

export function findRoute(c: Catalog, family: string, protocol: string, event: string, kind: 'raw' | 'aggregate'): Route | undefined {
  const same = c.routes.filter((r) => r.family === family && r.protocol === protocol && r.event === event);
  return same.find((r) => r.kind === kind) ?? same[0];
}

/** Parameters that name the range, shown in the range panel with coverage. */
export const RANGE_PARAMS = ['block_start', 'block_end', 'since', 'until'] as const;
/** Parameters the run and download buttons set, not the form. */
export const OUTPUT_PARAMS = ['format', 'link'] as const;
