import { describe, expect, it } from 'vitest';
import { daysMs, partitionCount, partitionName, partitionsOf, shareCost } from './partitions.ts';

describe('export partitions', () => {
  it('splits an inclusive block range into partitions of the given size, the last one shorter', () => {
    const parts = partitionsOf({ kind: 'blocks', start: 100, end: 349 }, 100);
    expect(parts).toEqual([
      { index: 0, start: 100, end: 199 },
      { index: 1, start: 200, end: 299 },
      { index: 2, start: 300, end: 349 },
    ]);
    expect(partitionCount({ kind: 'blocks', start: 100, end: 349 }, 100)).toBe(3);
    expect(partitionsOf({ kind: 'blocks', start: 7, end: 7 }, 100)).toEqual([{ index: 0, start: 7, end: 7 }]);
  });

  it('splits a time range into whole days and names files by their first and end day', () => {
    const since = Date.UTC(2025, 11, 1);
    const parts = partitionsOf({ kind: 'time', start: since, end: since + daysMs(2.5) }, daysMs(1));
    expect(parts.map((p) => partitionName('time', p, 'csv'))).toEqual(['part-20251201-20251202.csv', 'part-20251202-20251203.csv', 'part-20251203-20251203.csv']);
    expect(partitionName('blocks', { index: 0, start: 5, end: 9 }, 'parquet')).toBe('part-5-9.parquet');
  });

  it('shares a price among partitions in proportion to their size, adding up exactly to the whole', () => {
    const parts = partitionsOf({ kind: 'blocks', start: 0, end: 999 }, 300);
    const shares = shareCost(500, parts, 'blocks');
    expect(shares).toEqual([150, 150, 150, 50]);
    for (const [total, size] of [
      [100, 7],
      [1_001, 333],
      [37, 10],
      [9_999_999, 123_457],
    ] as const) {
      const p = partitionsOf({ kind: 'blocks', start: 12, end: 12 + 4_321_000 }, size * 1000);
      const s = shareCost(total, p, 'blocks');
      expect(s.reduce((a, b) => a + b, 0)).toBe(total);
      expect(s.every((x) => x >= 0)).toBe(true);
    }
  });

  it('charges a range under the 100-block minimum its minimum in total, spread over its partitions', () => {
    const parts = partitionsOf({ kind: 'blocks', start: 0, end: 39 }, 10);
    expect(shareCost(100, parts, 'blocks')).toEqual([25, 25, 25, 25]);
  });
});
