import { describe, expect, it } from 'vitest';
import { intersect } from '../../store/coverage.ts';
import { nodeOrigin, sampleBlocks } from './verifyEvm.ts';

describe('verify helpers', () => {
  it('names a node by scheme, host and port only, never its credentials, path or query', () => {
    expect(nodeOrigin('https://user:secret@eth.example:8545/v3/0123456789abcdef?key=k')).toBe('https://eth.example:8545');
    expect(nodeOrigin('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    expect(nodeOrigin('not a url')).toBe('invalid URL');
  });

  it('samples distinct blocks inside the ranges, as many as asked, or every block when asked for more', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const ranges = [
      { lo: 10, hi: 19 },
      { lo: 100, hi: 104 },
    ];
    const picked = sampleBlocks(ranges, 6, random);
    const blocks = picked.flatMap((i) => Array.from({ length: i.hi - i.lo + 1 }, (_, k) => i.lo + k));
    expect(blocks).toHaveLength(6);
    expect(new Set(blocks).size).toBe(6);
    for (const b of blocks) expect((b >= 10 && b <= 19) || (b >= 100 && b <= 104)).toBe(true);
    expect(sampleBlocks(ranges, 15, random)).toEqual(ranges);
  });

  it('intersects interval lists', () => {
    expect(
      intersect(
        [
          { lo: 1, hi: 10 },
          { lo: 20, hi: 30 },
        ],
        [
          { lo: 5, hi: 22 },
          { lo: 29, hi: 40 },
        ],
      ),
    ).toEqual([
      { lo: 5, hi: 10 },
      { lo: 20, hi: 22 },
      { lo: 29, hi: 30 },
    ]);
  });
});
