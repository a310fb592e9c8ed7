/**
 * Where a stream or a pull starts and ends, as block positions: a position is
 * the last block already delivered whole (so block_start=s starts at s - 1),
 * with its hash when the store holds that block.
 */
import { rangeLimit } from '../catalog/formats.ts';
import type { ChainEndpoint, Format } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { canonicalHash, commonAncestor, type BlockRef } from '../store/chainLog.ts';
import { blocksAround, coveredIntervals, type Interval } from '../store/coverage.ts';
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
  return headWithin(await coveredIntervals(store, dataset, network), from);
}

/** `deliverableHead` over covered intervals already read. */
export function headWithin(covered: readonly Interval[], from: number): number {
  const hit = covered.find((i) => i.lo <= from + 1 && i.hi >= from);
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

/**
 * Whether the block of `p` is still canonical, and if not, where its chain
 * meets the canonical one. `hashOf` reads a canonical hash of `store`
 * (streams pass one shared among the streams looking at the same snapshot).
 */
export async function checkPosition(store: Store, network: string, p: Position, hashOf = (n: number) => canonicalHash(store, network, n)): Promise<Checked> {
  if (p.hash === null) return { kind: 'canonical' };
  if ((await hashOf(p.block)) === p.hash) return { kind: 'canonical' };
  const ancestor = await commonAncestor(store, network, p.block, p.hash);
  return ancestor ? { kind: 'reorged', ancestor } : { kind: 'unknown' };
}

/** The blocks a pull with `cursor=` answers, and the cursor it hands out next. */
export interface PullRange {
  readonly start: number;
  readonly end: number;
  /** Nothing new after the cursor yet: the answer is empty and the next cursor is the same position. */
  readonly empty: boolean;
  readonly next: string;
}

/**
 * A pull after `cursorText`: the blocks after it up to the format's range
 * limit, the delivered head or `blockEnd`. A cursor whose block was rolled
 * back is answered 409 cursor_reorged with the last block it shares with the
 * canonical chain and a cursor to continue from there.
 */
export async function pullRange(store: Store, endpoint: ChainEndpoint, network: string, cursorText: string, blockEnd: number | undefined, format: Format): Promise<PullRange> {
  const c = decodeCursor(cursorText, endpoint.id, network);
  const pos: Position = { block: c.block, hash: c.hash };
  const checked = await checkPosition(store, network, pos);
  if (checked.kind === 'unknown') throw new ApiError('invalid_cursor', `the cursor's block ${c.block} is not one this server ever held on ${network}`, { parameter: 'cursor' });
  if (checked.kind === 'reorged') {
    const a = checked.ancestor;
    throw new ApiError('cursor_reorged', `block ${c.block} of the cursor was rolled back on ${network}; block ${a.number} is the last it shares with the chain, continue from the cursor given here`, {
      block_number: a.number,
      block_hash: a.hash,
      cursor: cursorOf(endpoint, network, { block: a.number, hash: a.hash }),
    });
  }
  const head = await deliverableHead(store, endpoint.id, network, c.block);
  const end = Math.min(head, c.block + rangeLimit(format, network).blocks, blockEnd ?? Number.MAX_SAFE_INTEGER);
  if (end <= c.block) return { start: c.block, end: c.block, empty: true, next: cursorOf(endpoint, network, pos) };
  return { start: c.block + 1, end, empty: false, next: cursorOf(endpoint, network, await positionAt(store, network, end)) };
}
