/**
 * Contract addresses of the protocols ingestion reads, per network: the
 * shipped seed (reference/seed/protocols.json) with an operator file laid
 * over it. The operator file has the seed's shape; each (protocol, network)
 * entry it names replaces the shipped one whole, and `null` removes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BridgeKind } from '../catalog/evm/staking.ts';
import { SEED_DIR } from './importReference.ts';

export type Address = `0x${string}`;

export interface LendingMarket {
  /** Market name: Core, Prime or EtherFi on ETH (the eth_market_type values); Core elsewhere. */
  readonly market: string;
  readonly pool: Address;
  readonly deployed_block: number | null;
}

export interface DexFactory {
  readonly factory: Address;
  readonly deployed_block: number | null;
}

/** The event dialect of an L2 wstETH bridge (the catalog declares each dialect's ABI). */
export type { BridgeKind };

export interface StakingContracts {
  /** L1: the stETH token (Submitted events). */
  readonly steth?: Address;
  /** L1: the WithdrawalQueue (WithdrawalRequested, WithdrawalClaimed). */
  readonly withdrawal_queue?: Address;
  /** L2: the wstETH token bridge (deposit-finalized, withdrawal-initiated). */
  readonly l2_token_bridge?: Address;
  /** L2: the bridged wstETH token. */
  readonly wsteth?: Address;
  /** L2: the wstETH token on L1, for bridges whose events do not name it. */
  readonly l1_wsteth?: Address;
  /** L2: which event dialect the bridge speaks; by default arbitrum on ARB, zksync on ZK, optimism elsewhere. */
  readonly bridge_kind?: BridgeKind;
}

export interface Protocols {
  readonly lending_v3: Readonly<Record<string, readonly LendingMarket[]>>;
  readonly dex_v3: Readonly<Record<string, DexFactory>>;
  readonly staking: Readonly<Record<string, StakingContracts>>;
}

/** wstETH on Ethereum: what every Lido L2 bridge carries. */
export const L1_WSTETH: Address = '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0';

export const DEFAULT_BRIDGE_KIND: Readonly<Record<string, BridgeKind>> = { ARB: 'arbitrum', ZK: 'zksync' };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SECTIONS = ['lending_v3', 'dex_v3', 'staking'] as const;

export class ProtocolConfigError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'ProtocolConfigError';
  }
}

function address(file: string, where: string, v: unknown): Address {
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw new ProtocolConfigError(file, `${where} must be a 0x-prefixed 20-byte hex address, got ${JSON.stringify(v)}`);
  return v.toLowerCase() as Address;
}

function block(file: string, where: string, v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new ProtocolConfigError(file, `${where} must be a block number or null`);
  return v;
}

function parseSection(file: string, section: (typeof SECTIONS)[number], network: string, v: unknown): unknown {
  const at = `${section}.${network}`;
  switch (section) {
    case 'lending_v3': {
      if (!Array.isArray(v)) throw new ProtocolConfigError(file, `${at} must be a list of {market, pool, deployed_block}`);
      return v.map((m: Record<string, unknown>, i) => {
        if (typeof m?.market !== 'string' || m.market === '') throw new ProtocolConfigError(file, `${at}[${i}].market must be a name such as Core`);
        return { market: m.market, pool: address(file, `${at}[${i}].pool`, m.pool), deployed_block: block(file, `${at}[${i}].deployed_block`, m.deployed_block) };
      });
    }
    case 'dex_v3': {
      const d = v as Record<string, unknown>;
      return { factory: address(file, `${at}.factory`, d?.factory), deployed_block: block(file, `${at}.deployed_block`, d?.deployed_block) };
    }
    case 'staking': {
      const s = (v ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of ['steth', 'withdrawal_queue', 'l2_token_bridge', 'wsteth', 'l1_wsteth'] as const) {
        if (s[k] !== undefined && s[k] !== null) out[k] = address(file, `${at}.${k}`, s[k]);
      }
      if (s.bridge_kind !== undefined) {
        if (!['optimism', 'arbitrum', 'zksync'].includes(String(s.bridge_kind))) throw new ProtocolConfigError(file, `${at}.bridge_kind must be optimism, arbitrum or zksync`);
        out.bridge_kind = s.bridge_kind;
      }
      return out;
    }
  }
}

/** Parses a protocols file (shipped or operator), keeping `null` entries as removals. */
function parseFile(file: string, raw: unknown): Record<string, Record<string, unknown>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ProtocolConfigError(file, 'expected a JSON object');
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key.startsWith('_')) continue; // comments and sources
    if (!(SECTIONS as readonly string[]).includes(key)) throw new ProtocolConfigError(file, `unknown section '${key}'; expected ${SECTIONS.join(', ')}`);
    if (typeof value !== 'object' || value === null) throw new ProtocolConfigError(file, `${key} must be an object keyed by network code`);
    const section: Record<string, unknown> = {};
    for (const [network, v] of Object.entries(value as Record<string, unknown>)) {
      const code = network.toUpperCase();
      section[code] = v === null ? null : parseSection(file, key as (typeof SECTIONS)[number], code, v);
    }
    out[key] = section;
  }
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new ProtocolConfigError(file, `cannot read: ${(e as Error).message}`);
  }
}

export const SHIPPED_PROTOCOLS = path.join(SEED_DIR, 'protocols.json');

/** The shipped addresses, with `overrideFile` (when given) laid over them. */
export function loadProtocols(overrideFile?: string): Protocols {
  const merged = parseFile(SHIPPED_PROTOCOLS, readJson(SHIPPED_PROTOCOLS));
  if (overrideFile) {
    const over = parseFile(overrideFile, readJson(overrideFile));
    for (const [section, networks] of Object.entries(over)) {
      merged[section] ??= {};
      for (const [network, v] of Object.entries(networks)) merged[section]![network] = v;
    }
  }
  const clean = (s: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(s ?? {}).filter(([, v]) => v !== null));
  return {
    lending_v3: clean(merged.lending_v3) as Protocols['lending_v3'],
    dex_v3: clean(merged.dex_v3) as Protocols['dex_v3'],
    staking: clean(merged.staking) as Protocols['staking'],
  };
}
