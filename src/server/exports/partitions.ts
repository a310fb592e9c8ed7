/**
 * How an export splits its range into partitions, names their files, and
 * shares its price among them (docs/api.md, "Exports"). Pure functions.
 */
import { SECONDS_PER_DAY } from '../../catalog/common.ts';

/** A block range (both ends inclusive, as block_start/block_end are) or a time range (epoch ms, end exclusive, as since/until are). */
export type ExportRange = { readonly kind: 'blocks'; readonly start: number; readonly end: number } | { readonly kind: 'time'; readonly start: number; readonly end: number };

export interface Partition {
  readonly index: number;
  readonly start: number;
  readonly end: number;
}

const DAY_MS = SECONDS_PER_DAY * 1000;

/** Consecutive partitions of `size` blocks (or `size` milliseconds), the last one shorter when the range does not divide. */
export function partitionsOf(range: ExportRange, size: number): Partition[] {
  const out: Partition[] = [];
  if (range.kind === 'blocks') {
    for (let s = range.start, i = 0; s <= range.end; s += size, i++) out.push({ index: i, start: s, end: Math.min(range.end, s + size - 1) });
  } else {
    for (let s = range.start, i = 0; s < range.end; s += size, i++) out.push({ index: i, start: s, end: Math.min(range.end, s + size) });
  }
  return out;
}

export function partitionCount(range: ExportRange, size: number): number {
  const span = range.kind === 'blocks' ? range.end - range.start + 1 : range.end - range.start;
  return Math.ceil(span / size);
}

/** Milliseconds in `days` days: the partition size of a time range. */
export const daysMs = (days: number): number => days * DAY_MS;

const yyyymmdd = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/**
 * The partition's file name: `part-<first>-<last>` blocks, or
 * `part-<YYYYMMDD>-<YYYYMMDD>` from its first day to the day its (exclusive)
 * end falls on, so one day of 2025-12-01 is `part-20251201-20251202`.
 */
export function partitionName(kind: ExportRange['kind'], p: Partition, extension: string): string {
  const bounds = kind === 'blocks' ? `${p.start}-${p.end}` : `${yyyymmdd(p.start)}-${yyyymmdd(p.end)}`;
  return `part-${bounds}.${extension}`;
}

/**
 * Each partition's share of the export's price `total`: the partition
 * covering the running share up to its end pays what the rounded running
 * total grew by, so the shares follow the partitions' sizes, never differ
 * from their exact proportion by a block or more, and add up to `total`
 * exactly (the 100-block minimum of a short range included).
 */
export function shareCost(total: number, partitions: readonly Partition[], kind: ExportRange['kind']): number[] {
  const sizes = partitions.map((p) => (kind === 'blocks' ? p.end - p.start + 1 : p.end - p.start));
  const whole = sizes.reduce((a, b) => a + b, 0);
  let covered = 0;
  let charged = 0;
  return sizes.map((size) => {
    covered += size;
    // BigInt keeps total × covered exact past 2^53.
    const upTo = Number((BigInt(total) * BigInt(covered)) / BigInt(whole));
    const share = upTo - charged;
    charged = upTo;
    return share;
  });
}
