/**
 * A verification record as both engines store it: the ranges and the
 * mismatching blocks as JSON arrays, the outcome as text. Each engine reads
 * and writes the columns in its own way (./duckdb/verification.ts,
 * ./clickhouse/verification.ts); the record is the same.
 */
import type { Interval } from './intervals.ts';
import type { VerificationRecord } from './types.ts';

/** The columns of a record but its time, as stored. */
export interface VerificationColumns {
  readonly network: string;
  readonly dataset: string;
  readonly node: string;
  readonly sampled: boolean;
  readonly ranges: string;
  readonly blocks: number;
  readonly result: string;
  readonly mismatches: number;
  readonly mismatch_blocks: string;
}

/** A stored record as read back, numbers as the engine hands them. */
export interface StoredVerification {
  readonly network: string;
  readonly dataset: string;
  readonly verifiedAt: Date;
  readonly node: string;
  readonly sampled: boolean | number;
  readonly ranges: string;
  readonly blocks: bigint | number | string;
  readonly result: string;
  readonly mismatch_blocks: string;
}

export function verificationColumns(r: VerificationRecord): VerificationColumns {
  return {
    network: r.network,
    dataset: r.dataset,
    node: r.node,
    sampled: r.sampled,
    ranges: JSON.stringify(r.ranges.map((i) => [i.lo, i.hi])),
    blocks: r.blocks,
    result: r.result,
    mismatches: r.mismatchBlocks.length,
    mismatch_blocks: JSON.stringify(r.mismatchBlocks),
  };
}

const intervals = (json: string): Interval[] => (JSON.parse(json) as [number, number][]).map(([lo, hi]) => ({ lo, hi }));

export function verificationRecordOf(r: StoredVerification): VerificationRecord {
  return {
    network: r.network,
    dataset: r.dataset,
    verifiedAt: r.verifiedAt,
    node: r.node,
    sampled: Boolean(r.sampled),
    ranges: intervals(r.ranges),
    blocks: Number(r.blocks),
    result: r.result === 'ok' ? 'ok' : 'mismatch',
    mismatchBlocks: JSON.parse(r.mismatch_blocks) as number[],
  };
}
