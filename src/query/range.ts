/**
 * The range of an event query: exactly one of a block pair or a time pair,
 * checked against the limit of the requested format.
 */
import { FORMAT_NAMES, rangeLimit, SECONDS_PER_DAY } from '../catalog/formats.ts';
import type { Format } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { timeParam } from './timeParam.ts';

export type QueryRange =
  | { readonly kind: 'blocks'; readonly start: number; readonly end: number }
  /** since inclusive, until exclusive, epoch milliseconds. */
  | { readonly kind: 'time'; readonly since: number; readonly until: number };

export interface RangeInput {
  block_start?: number | undefined;
  block_end?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export function parseRange(q: RangeInput): QueryRange {
  const hasBlocks = q.block_start !== undefined || q.block_end !== undefined;
  const hasTime = q.since !== undefined || q.until !== undefined;
  if (hasBlocks && hasTime) {
    throw new ApiError('conflicting_parameters', 'give either block_start/block_end or since/until, not both');
  }
  if (!hasBlocks && !hasTime) {
    throw new ApiError('missing_parameter', 'a range is required: block_start and block_end, or since and until');
  }
  if (hasBlocks) {
    if (q.block_start === undefined) throw new ApiError('missing_parameter', 'block_start is required with block_end', { parameter: 'block_start' });
    if (q.block_end === undefined) throw new ApiError('missing_parameter', 'block_end is required with block_start', { parameter: 'block_end' });
    if (q.block_end < q.block_start) {
      throw new ApiError('invalid_range', `block_end (${q.block_end}) is before block_start (${q.block_start})`, { parameter: 'block_end' });
    }
    return { kind: 'blocks', start: q.block_start, end: q.block_end };
  }
  if (q.since === undefined) throw new ApiError('missing_parameter', 'since is required with until', { parameter: 'since' });
  if (q.until === undefined) throw new ApiError('missing_parameter', 'until is required with since', { parameter: 'until' });
  const since = timeParam('since', q.since);
  const until = timeParam('until', q.until);
  if (until <= since) throw new ApiError('invalid_range', `until (${q.until}) must be after since (${q.since})`, { parameter: 'until' });
  return { kind: 'time', since, until };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Throws range_too_large when the range exceeds what `format` allows on `network`. */
export function checkRangeLimit(range: QueryRange, format: Format, network: string): void {
  // The limit of a format for this kind of range: blocks, or seconds.
  const reach = (f: Format) => (range.kind === 'blocks' ? rangeLimit(f, network).blocks : rangeLimit(f, network).seconds);
  const size = range.kind === 'blocks' ? range.end - range.start : (range.until - range.since) / 1000;
  const max = reach(format);
  if (size <= max) return;
  const unit = range.kind === 'blocks' ? 'blocks' : 'seconds';
  const describe = (f: Format) => {
    const l = rangeLimit(f, network);
    return range.kind === 'blocks' ? `${fmt(l.blocks)} blocks` : `${fmt(l.seconds / SECONDS_PER_DAY)} day${l.seconds === SECONDS_PER_DAY ? '' : 's'}`;
  };
  // The format with the smallest limit that still covers the range (the first in the table among equals).
  const wider = [...FORMAT_NAMES].sort((a, b) => reach(a) - reach(b)).find((f) => reach(f) >= size);
  const hint = wider ? `; format=${wider} allows up to ${describe(wider)}` : '; no format allows a range this large, so split it into several queries';
  throw new ApiError('range_too_large', `the range spans ${fmt(size)} ${unit}, over the ${describe(format)} limit of format=${format} on ${network}${hint}`, {
    parameter: range.kind === 'blocks' ? 'block_end' : 'until',
    limit: max,
    requested: size,
  });
}
