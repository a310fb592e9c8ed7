/** Catalog parameters → the JSON Schema of a route's query string. */
import type { ParamDef, Params } from '../types.ts';

export interface QuerySchema {
  type: 'object';
  additionalProperties: false;
  required: string[];
  properties: Record<string, Record<string, unknown>>;
}

export function paramSchema(p: ParamDef, forValidation: boolean): Record<string, unknown> {
  const s: Record<string, unknown> = { type: p.type, description: p.description };
  // String enums are case-insensitive and their errors name the accepted
  // values, so the query layer checks them; the schema checks numeric enums.
  if (p.enum && (p.type !== 'string' || !forValidation)) s.enum = [...p.enum];
  if (p.minimum !== undefined) s.minimum = p.minimum;
  if (p.default !== undefined && !forValidation) s.default = p.default;
  return s;
}

export function querySchema(params: Params, forValidation = true): QuerySchema {
  const properties: QuerySchema['properties'] = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(params)) {
    properties[name] = paramSchema(p, forValidation);
    if (p.required) required.push(name);
  }
  return { type: 'object', additionalProperties: false, required, properties };
}
