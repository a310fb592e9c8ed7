/** Catalog → the discovery routes of docs/api.md, "Discovery" (their paths) and their payloads. */
import { COVERAGE_PARAMS, COVERAGE_PATH } from '../coverage.ts';
import { catalog } from '../index.ts';
import type { ChainEndpoint, Endpoint, Params } from '../types.ts';
import { publicAggregateSchema, type PublicAggregateSchema } from './aggregate.ts';

const isServedChain = (e: Endpoint): e is ChainEndpoint => e.family !== 'exchange' && e.served;

export function protocols(entries: readonly Endpoint[] = catalog): string[] {
  return [...new Set(entries.filter(isServedChain).map((e) => `${e.family}/${e.protocol}`))];
}

export function protocolEndpoints(family: string, protocol: string, entries: readonly Endpoint[] = catalog): ChainEndpoint[] {
  return entries.filter(isServedChain).filter((e) => e.family === family && e.protocol === protocol);
}

export function networksOf(eps: readonly ChainEndpoint[]): string[] {
  return [...new Set(eps.flatMap((e) => e.networks))];
}

export function eventTypesOf(eps: readonly ChainEndpoint[]): string[] {
  return eps.map((e) => e.event);
}

export interface ParamSchemaEntry {
  description: string;
  type: string;
  required: boolean;
  enum?: (string | number)[];
}

/** The protocol-specific parameters (beyond range, network and format) of a protocol's endpoints. */
export function extraArgsOf(eps: readonly ChainEndpoint[]): Record<string, ParamSchemaEntry> {
  const out: Record<string, ParamSchemaEntry> = {};
  for (const e of eps) {
    for (const [name, p] of Object.entries(e.params)) {
      if (out[name]) continue;
      out[name] = { description: p.description, type: p.type, required: p.required ?? false, ...(p.enum ? { enum: [...p.enum] } : {}) };
    }
  }
  return out;
}

/** The aggregate schema of a protocol: one entry per aggregatable event type, as the endpoints return it. */
export function aggregateSchemaOf(eps: readonly ChainEndpoint[]): Record<string, PublicAggregateSchema> {
  const out: Record<string, PublicAggregateSchema> = {};
  for (const e of eps) {
    const s = publicAggregateSchema(e);
    if (s) out[e.event] = s;
  }
  return out;
}

export type DiscoveryKind = 'protocols' | 'coverage' | 'tokens' | 'networks' | 'event_types' | 'extra_args' | 'aggregate_schema';

/**
 * Where each discovery answer is, written once: the server registers these
 * paths, OpenAPI documents them, the client and the MCP tools call them.
 * The per-protocol ones take the two parts of a protocol id (evm/erc20).
 */
export const DISCOVERY_PATHS = {
  protocols: '/v1/protocols',
  coverage: COVERAGE_PATH,
  tokens: '/v1/tokens',
  networks: '/v1/{family}/{protocol}/networks',
  event_types: '/v1/{family}/{protocol}/events/types',
  extra_args: '/v1/{family}/{protocol}/extra_args',
  aggregate_schema: '/v1/{family}/{protocol}/aggregate_schema',
} as const satisfies Record<DiscoveryKind, string>;

type ProtocolKind = 'networks' | 'event_types' | 'extra_args' | 'aggregate_schema';

/** The path of a discovery answer; the per-protocol ones need the protocol id (evm/erc20). */
export function discoveryPath(kind: DiscoveryKind, protocolId?: string): string {
  const template: string = DISCOVERY_PATHS[kind];
  if (!template.includes('{protocol}')) return template;
  const [family, protocol, ...rest] = protocolId?.split('/') ?? [];
  if (!family || !protocol || rest.length) throw new Error(`${kind} is a per-protocol discovery path: it needs a protocol id <family>/<protocol>, not ${protocolId}`);
  return template.replace('{family}', family).replace('{protocol}', protocol);
}

/** The per-protocol answers, in order: networks, event types and extra args are EVM's; every protocol has its aggregate schema. */
const PROTOCOL_ANSWERS: readonly { kind: ProtocolKind; evmOnly: boolean; summary: (id: string) => string }[] = [
  { kind: 'networks', evmOnly: true, summary: (id) => `Networks of ${id}.` },
  { kind: 'event_types', evmOnly: true, summary: (id) => `Event types of ${id}.` },
  { kind: 'extra_args', evmOnly: true, summary: (id) => `Protocol-specific parameters of ${id}.` },
  { kind: 'aggregate_schema', evmOnly: false, summary: (id) => `Aggregate output schema of ${id}.` },
];

interface DiscoveryRouteBase {
  readonly path: string;
  /** One line for OpenAPI. */
  readonly summary: string;
  /** What the 200 answer holds, for OpenAPI. */
  readonly answer: string;
}

/** One GET discovery route: free, derived from the catalog (and the store, for coverage and tokens). */
export type DiscoveryRoute =
  | (DiscoveryRouteBase & { readonly kind: 'protocols' | 'tokens' })
  | (DiscoveryRouteBase & { readonly kind: 'coverage'; readonly params: Params })
  | (DiscoveryRouteBase & { readonly kind: ProtocolKind; readonly protocol: string; readonly endpoints: readonly ChainEndpoint[] });

/** Every discovery route of a catalog, with its path: the global ones, then each served protocol's. */
export function discoveryRoutes(entries: readonly Endpoint[] = catalog): DiscoveryRoute[] {
  const out: DiscoveryRoute[] = [
    { kind: 'protocols', path: discoveryPath('protocols'), summary: 'Protocol identifiers.', answer: 'Array of strings.' },
    {
      kind: 'coverage',
      path: discoveryPath('coverage'),
      params: COVERAGE_PARAMS,
      summary: 'What the store covers, per dataset and network (or token): covered ranges with their times, gaps, the newest block, the confirmation depth and when it last advanced. Free.',
      answer: '{"coverage": [entry, …]}; see docs/api.md.',
    },
    { kind: 'tokens', path: discoveryPath('tokens'), summary: 'Token registry.', answer: 'Array of tokens.' },
  ];
  for (const id of protocols(entries)) {
    const [family = '', protocol = ''] = id.split('/');
    const endpoints = protocolEndpoints(family, protocol, entries);
    for (const a of PROTOCOL_ANSWERS) {
      if (a.evmOnly && family !== 'evm') continue;
      const summary = a.summary(id);
      out.push({ kind: a.kind, path: discoveryPath(a.kind, id), protocol: id, endpoints, summary, answer: summary });
    }
  }
  return out;
}
