/**
 * The protocol registry: the one list of EVM protocols. Everything else about
 * a protocol is derived from it: the catalog's EVM endpoints (and so routes,
 * tables, OpenAPI, the client), the decoders a run plans, the sections of the
 * protocols file, and the CLI's help. Adding a protocol is a folder beside
 * these (docs/adding-a-protocol.md) and one entry in BUILT_IN_PROTOCOLS.
 *
 * Protocols sit between the catalog's building blocks (catalog/types.ts,
 * catalog/common.ts) and the assembled catalog (catalog/index.ts), below the
 * store and ingestion: they reach the engine and the node only through the
 * interfaces of types.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChainEndpoint } from '../catalog/types.ts';
import { dexV3 } from './dex_v3/index.ts';
import { erc20 } from './erc20/index.ts';
import { lendingV3 } from './lending_v3/index.ts';
import { native } from './native/index.ts';
import type { EvmProtocol } from './protocol.ts';
import { staking } from './staking/index.ts';

export type { EvmProtocol } from './protocol.ts';

/** In the order a run plans them. */
export const BUILT_IN_PROTOCOLS: readonly EvmProtocol[] = [erc20, native, lendingV3, dexV3, staking];

export interface ProtocolRegistry {
  readonly protocols: readonly EvmProtocol[];
  readonly names: readonly string[];
  /** Every protocol's datasets, in registry order: the catalog's EVM endpoints. */
  readonly endpoints: readonly ChainEndpoint[];
  byName(name: string): EvmProtocol | undefined;
  /** The protocols with a section in the protocols file. */
  readonly configured: readonly EvmProtocol[];
  /** One line per protocol (name, then summary, aligned), for the CLI's help. */
  readonly help: string;
}

/** Checks that names are unique and that each protocol's datasets are EVM datasets that name it. */
export function createRegistry(protocols: readonly EvmProtocol[]): ProtocolRegistry {
  const byName = new Map<string, EvmProtocol>();
  for (const p of protocols) {
    if (byName.has(p.name)) throw new Error(`protocols: ${p.name} is registered twice`);
    byName.set(p.name, p);
    for (const e of p.endpoints) {
      if (e.family !== 'evm' || e.protocol !== p.name) throw new Error(`protocols: ${p.name} lists ${e.id}, a dataset of ${e.family}/${e.protocol}`);
    }
  }
  return {
    protocols,
    names: protocols.map((p) => p.name),
    endpoints: protocols.flatMap((p) => p.endpoints),
    byName: (name) => byName.get(name),
    configured: protocols.filter((p) => p.readEntry !== undefined),
    help: protocols.map((p) => `  ${p.name.padEnd(Math.max(...protocols.map((q) => q.name.length)))}  ${p.summary}`).join('\n'),
  };
}

const isProtocol = (v: unknown): v is EvmProtocol =>
  typeof v === 'object' && v !== null && 'name' in v && typeof v.name === 'string' && 'plan' in v && typeof v.plan === 'function' && 'endpoints' in v && Array.isArray(v.endpoints);

/**
 * Protocols added without editing src/ (an operator's, or a test's): the
 * modules that CHAINQ_PROTOCOLS names (paths separated by commas, from the
 * working directory), each exporting `protocol`, made with defineProtocol.
 * They come after the built-in ones. Read once, when the registry is first
 * imported, because the catalog, the store's tables and the routes are built
 * from it.
 */
export async function extraProtocols(list: string | undefined): Promise<EvmProtocol[]> {
  const out: EvmProtocol[] = [];
  for (const file of (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const mod: unknown = await import(pathToFileURL(path.resolve(file)).href);
    const protocol = typeof mod === 'object' && mod !== null && 'protocol' in mod ? mod.protocol : undefined;
    if (!isProtocol(protocol)) throw new Error(`CHAINQ_PROTOCOLS: ${file} does not export a protocol made with defineProtocol`);
    out.push(protocol);
  }
  return out;
}

export const protocolRegistry: ProtocolRegistry = createRegistry([...BUILT_IN_PROTOCOLS, ...(await extraProtocols(process.env.CHAINQ_PROTOCOLS))]);
