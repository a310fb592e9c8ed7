import { describe, expect, it } from 'vitest';
import { intersect } from './intervals.ts';

describe('intersect', () => {
  it('keeps the parts of each interval of a that lie inside intervals of b, skipping those of b wholly below', () => {
    const a = [
      { lo: 0, hi: 4 },
      { lo: 10, hi: 20 },
      { lo: 30, hi: 30 },
    ];
    const b = [
      { lo: 2, hi: 3 },
      { lo: 5, hi: 12 },
      { lo: 15, hi: 17 },
      { lo: 19, hi: 25 },
      { lo: 31, hi: 40 },
    ];
    expect(intersect(a, b)).toEqual([
      { lo: 2, hi: 3 },
      { lo: 10, hi: 12 },
      { lo: 15, hi: 17 },
      { lo: 19, hi: 20 },
    ]);
    expect(intersect(a, [])).toEqual([]);
    expect(intersect([], b)).toEqual([]);
  });
});
