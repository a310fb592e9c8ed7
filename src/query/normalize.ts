/**
 * The checks a JSON Schema cannot express well: case-insensitive enums,
 * mutual exclusions and network-restricted parameters. Runs after the schema
 * has checked types, required and unknown parameters.
 */
import type { Params } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';

export type QueryValues = Record<string, string | number | boolean | undefined>;

export function normalizeQuery(params: Params, raw: Readonly<Record<string, unknown>>): QueryValues {
  const out: QueryValues = {};
  for (const [name, p] of Object.entries(params)) {
    const v = raw[name];
    if (v === undefined) {
      if (p.default !== undefined) out[name] = p.default;
      continue;
    }
    if (p.type === 'string' && typeof v === 'string' && p.enum) {
      const hit = p.enum.find((e) => String(e).toLowerCase() === v.trim().toLowerCase());
      if (hit === undefined) {
        const list = p.enum.join(', ');
        if (name === 'network') throw new ApiError('unsupported_network', `network '${v}' is not supported here; supported: ${list}`, { supported: [...p.enum] });
        throw new ApiError('invalid_parameter', `${name}='${v}' is not accepted; accepted values: ${list}`, { parameter: name, supported: [...p.enum] });
      }
      out[name] = hit;
      continue;
    }
    out[name] = v as string | number | boolean;
  }
  for (const [name, p] of Object.entries(params)) {
    if (raw[name] === undefined) continue;
    const clash = (p.exclusiveWith ?? []).filter((x) => raw[x] !== undefined);
    if (clash.length) {
      throw new ApiError('conflicting_parameters', `${name} cannot be combined with ${clash.join(', ')}`, { parameters: [name, ...clash] });
    }
  }
  for (const [name, p] of Object.entries(params)) {
    if (raw[name] === undefined || !p.networks) continue;
    const network = out.network;
    if (typeof network === 'string' && !p.networks.includes(network)) {
      throw new ApiError('invalid_parameter', `${name} applies only to network=${p.networks.join(' or ')}`, { parameter: name });
    }
  }
  return out;
}
