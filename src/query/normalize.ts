/**
 * The checks a JSON Schema cannot express well: case-insensitive enums,
 * mutual exclusions and network-restricted parameters. Runs after the schema
 * has checked types, required and unknown parameters.
 */
import { isFormat } from '../catalog/formats.ts';
import type { Format, Params } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';

export type QueryValues = Record<string, string | number | boolean | undefined>;

/** The value of a parameter the schema types as a string; undefined when absent. */
export function stringValue(values: QueryValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** The value of a parameter the schema types as a number; undefined when absent. */
export function numberValue(values: QueryValues, name: string): number | undefined {
  const v = values[name];
  return typeof v === 'number' ? v : undefined;
}

/** The `format` of a request, or the endpoint's default. */
export function formatValue(values: QueryValues, defaultFormat: Format): Format {
  const v = values.format;
  return typeof v === 'string' && isFormat(v) ? v : defaultFormat;
}

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
    // The schema has typed every parameter as one scalar; a repeated one is not a value.
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new ApiError('invalid_parameter', `${name} must be given once`, { parameter: name });
    out[name] = v;
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
