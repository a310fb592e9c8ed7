/** Catalog → the discovery payloads (docs/api.md, "Discovery"). */
import { catalog } from '../index.ts';
import type { ChainEndpoint, Endpoint } from '../types.ts';
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
