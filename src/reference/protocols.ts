/**
 * Contract addresses of the protocols ingestion reads, per network: the
 * shipped seed (reference/seed/protocols.json) with an operator file laid
 * over it. The operator file has the seed's shape: one section per protocol
 * of the registry that has contracts to configure, keyed by network code;
 * each (protocol, network) entry it names replaces the shipped one whole, and
 * `null` removes it. Each protocol's folder declares its section's schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { protocolRegistry, type ProtocolRegistry } from '../protocols/index.ts';
import type { ProtocolSettings } from '../protocols/protocol.ts';
import { SEED_DIR } from './importReference.ts';

/** Section (protocol name) → network code → its entry, as the protocol read it. */
export type Protocols = ProtocolSettings;

export class ProtocolConfigError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'ProtocolConfigError';
  }
}

const isObject = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a protocols file (shipped or operator), keeping `null` entries as removals. */
function parseFile(file: string, raw: unknown, registry: ProtocolRegistry): Map<string, Map<string, unknown>> {
  if (!isObject(raw)) throw new ProtocolConfigError(file, 'expected a JSON object');
  const fail = (message: string): never => {
    throw new ProtocolConfigError(file, message);
  };
  const sections = registry.configured.map((p) => p.name);
  const out = new Map<string, Map<string, unknown>>();
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('_')) continue; // comments and sources
    const readEntry = registry.byName(key)?.readEntry;
    if (!readEntry) throw new ProtocolConfigError(file, `unknown section '${key}'; expected ${sections.join(', ')}`);
    if (!isObject(value)) throw new ProtocolConfigError(file, `${key} must be an object keyed by network code`);
    const section = new Map<string, unknown>();
    for (const [network, v] of Object.entries(value)) {
      const code = network.toUpperCase();
      section.set(code, v === null ? null : readEntry(`${key}.${code}`, v, fail));
    }
    out.set(key, section);
  }
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProtocolConfigError(file, `cannot read: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const SHIPPED_PROTOCOLS = path.join(SEED_DIR, 'protocols.json');

/** The shipped addresses, with `overrideFile` (when given) laid over them. */
export function loadProtocols(overrideFile?: string, registry: ProtocolRegistry = protocolRegistry): Protocols {
  const merged = parseFile(SHIPPED_PROTOCOLS, readJson(SHIPPED_PROTOCOLS), registry);
  if (overrideFile) {
    for (const [section, networks] of parseFile(overrideFile, readJson(overrideFile), registry)) {
      const into = merged.get(section) ?? new Map<string, unknown>();
      for (const [network, v] of networks) into.set(network, v);
      merged.set(section, into);
    }
  }
  return Object.fromEntries(registry.configured.map((p) => [p.name, Object.fromEntries([...(merged.get(p.name) ?? [])].filter(([, v]) => v !== null))]));
}
