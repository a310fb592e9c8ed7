/** GET /v1/coverage: its query parameters, derived from the catalog's families and protocols. */
import { dexV3 } from '../protocols/dex_v3/index.ts';
import { erc20 } from '../protocols/erc20/index.ts';
import { catalog } from './index.ts';
import type { Params } from './types.ts';

export const COVERAGE_PATH = '/v1/coverage';

const served = catalog.filter((e) => e.served);

export const COVERAGE_PARAMS: Params = {
  family: { type: 'string', description: 'Only datasets of this family.', enum: [...new Set(served.map((e) => e.family))] },
  protocol: { type: 'string', description: `Only datasets of this protocol (${erc20.name}, ${dexV3.name}, venue_a…).`, enum: [...new Set(served.map((e) => e.protocol))] },
  network: { type: 'string', description: 'Only this network (ETH, ARB, TRON, BTC…), or this token for exchange venues.' },
};

export interface CoverageFilter {
  readonly family?: string | undefined;
  readonly protocol?: string | undefined;
  /** A network code, or a token for venues. */
  readonly network?: string | undefined;
}

/** One covered range: block numbers for chains, epoch milliseconds for venues. */
export interface CoveredRange {
  readonly from: number;
  readonly to: number;
  /** Chains: times of the first and last stored block of the range (null when headers are not stored). */
  readonly time_from?: string | null;
  readonly time_to?: string | null;
}

export interface CoverageEntry {
  readonly dataset: string;
  readonly family: string;
  readonly protocol: string;
  readonly event: string;
  readonly network?: string;
  readonly token?: string;
  /** `block` for chains (ranges are block numbers), `ms` for venues (epoch milliseconds). */
  readonly unit: 'block' | 'ms';
  readonly ranges: readonly CoveredRange[];
  /** The holes between the first and the last covered unit. */
  readonly gaps: readonly { readonly from: number; readonly to: number }[];
  readonly newest: { readonly block?: number; readonly time: string | null };
  /** Blocks ingestion keeps behind the chain's head (null: not recorded, e.g. the demo or a venue). */
  readonly confirmations: number | null;
  /** When the dataset last gained coverage (null: before this was recorded). */
  readonly last_advanced: string | null;
  /**
   * Covered blocks whose latest `chainq verify` found the stored rows equal to
   * a node's (row count and content hash per block); empty for venues and
   * before any verification.
   */
  readonly verified_ranges: readonly { readonly from: number; readonly to: number }[];
  /** The latest verification of this dataset and network, null when none ran. */
  readonly last_verification: LastVerification | null;
}

/** One `chainq verify` run as GET /v1/coverage shows it. */
export interface LastVerification {
  readonly at: string;
  /** The node compared with: scheme, host and port only (never credentials, path or query). */
  readonly node: string;
  readonly result: 'ok' | 'mismatch';
  /** Blocks compared, and how many of them differed. */
  readonly blocks: number;
  readonly mismatches: number;
  /** A random sample of blocks (`--sample`) rather than every block of a range. */
  readonly sampled: boolean;
}
