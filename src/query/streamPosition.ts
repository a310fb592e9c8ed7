/**
 * Where a stream or a pull starts and ends, as block positions: a position is
 * the last block already delivered whole (so block_start=s starts at s - 1),
 * with its hash when the store holds that block.
 */
import type { ChainEndpoint } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { canonicalHash, commonAncestor, type BlockRef } from '../store/chainLog.ts';
import { blocksAround, coveredIntervals } from '../store/coverage.ts';
import type { Store } from '../store/types.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { assertChainCoverage } from './coverage.ts';
import { parseTime } from './time.ts';

export interface Position {
  readonly block: number;
  /** Null when the store holds no block there (before its first block): nothing there can be rolled back. */
  readonly hash: string | null;
}

export interface RangeValues {
  readonly cursor?: string | undefined;
  readonly block_start?: number | undefined;
  readonly block_end?: number | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export async function positionAt(store: Store, network: string, block: number): Promise<Position> {
  return { block, hash: block < 0 ? null : await canonicalHash(store, network, block) };
}

export function cursorOf(endpoint: ChainEndpoint, network: string, p: Position): string {
  return encodeCursor({ endpoint: endpoint.id, network, block: p.block, hash: p.hash });
}

function timeOf(name: 'since' | 'until', text: string): number {
  const ms = parseTime(text);
  if (ms === null) throw new ApiError('invalid_parameter', `${name}='${text}' is not a time: use Unix seconds, ISO 8601 with Z or an offset, or YYYY-MM-DD`, { parameter: name });
  return ms;
}

/** The block before the first one at or after `ms`, as far as the store knows the chain's times. */
async function blockBefore(store: Store, network: string, name: 'since' | 'until', ms: number): Promise<number> {
  const edges = await blocksAround(store, network, ms, ms);
  if (edges.before !== null) return edges.before;
  if (edges.after !== null) return edges.after - 1;
  throw new ApiError('invalid_range', `${name} cannot be placed on ${network}: the store holds no block of it yet; give a block number instead`, { parameter: name });
}

/** The position a stream or pull starts from: a cursor (checked against endpoint and network), block_start - 1 or the block before `since`. */
export async function startPosition(store: Store, endpoint: ChainEndpoint, network: string, v: RangeValues): Promise<Position> {
  if (v.cursor !== undefined) {
    const c = decodeCursor(v.cursor, endpoint.id, network);
    return { block: c.block, hash: c.hash };
  }
  if (v.block_start !== undefined) return positionAt(store, network, v.block_start - 1);
  if (v.since !== undefined) return positionAt(store, network, await blockBefore(store, network, 'since', timeOf('since', v.since)));
  throw new ApiError('missing_parameter', 'a start is required: block_start, since or cursor', { parameter: 'block_start' });
}

/** The last block to deliver, or null to follow the head forever. */
export async function endBlock(store: Store, network: string, v: RangeValues, from: Position): Promise<number | null> {
  if (v.block_end !== undefined && v.until !== undefined) throw new ApiError('conflicting_parameters', 'give block_end or until, not both', { parameters: ['block_end', 'until'] });
  const end = v.block_end ?? (v.until === undefined ? null : await blockBefore(store, network, 'until', timeOf('until', v.until)));
  if (end !== null && end < from.block)
    throw new ApiError('invalid_range', `the end (block ${end}) is before the start (block ${from.block + 1})`, { parameter: v.block_end === undefined ? 'until' : 'block_end' });
  return end;
}

/**
 * The newest block that can be delivered after `from`: the end of the
 * covered interval that holds or follows on from `from`, else `from` itself
 * (ingestion has not got there yet).
 */
export async function deliverableHead(store: Store, dataset: string, network: string, from: number): Promise<number> {
  const hit = (await coveredIntervals(store, dataset, network)).find((i) => i.lo <= from + 1 && i.hi >= from);
  return hit ? hit.hi : from;
}

/**
 * Refuses a start inside history the store does not cover (it would wait for
 * a gap that ingestion never fills); a start past the newest covered block
 * waits for it instead.
 */
export async function assertStartCovered(store: Store, dataset: string, network: string, from: number, end: number | null): Promise<void> {
  const covered = await coveredIntervals(store, dataset, network);
  const newest = covered.at(-1)?.hi;
  if (newest === undefined || from + 1 > newest) return;
  await assertChainCoverage(store, dataset, network, { kind: 'blocks', start: from + 1, end: Math.min(end ?? newest, newest) });
}

export type Checked = { readonly kind: 'canonical' } | { readonly kind: 'reorged'; readonly ancestor: BlockRef } | { readonly kind: 'unknown' };

/** Whether the block of `p` is still canonical, and if not, where its chain meets the canonical one. */
export async function checkPosition(store: Store, network: string, p: Position): Promise<Checked> {
  if (p.hash === null) return { kind: 'canonical' };
  if ((await canonicalHash(store, network, p.block)) === p.hash) return { kind: 'canonical' };
  const ancestor = await commonAncestor(store, network, p.block, p.hash);
  return ancestor ? { kind: 'reorged', ancestor } : { kind: 'unknown' };
}
