/** Catalog → the discovery payloads of interface.md §2.2. */
import { catalog } from '../index.ts';
import type { AggregateSchema, ChainEndpoint, Endpoint } from '../types.ts';

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

export function publicAggregateSchema(s: AggregateSchema): Omit<AggregateSchema, 'valued'> {
  const { valued: _valued, ...rest } = s;
  return rest;
}

export function aggregateSchemaOf(eps: readonly ChainEndpoint[]): Record<string, Omit<AggregateSchema, 'valued'>> {
  const out: Record<string, Omit<AggregateSchema, 'valued'>> = {};
  for (const e of eps) if (e.aggregate) out[e.event] = publicAggregateSchema(e.aggregate);
  return out;
}
