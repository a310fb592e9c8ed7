import { describe, expect, it } from 'vitest';
import { derivePositions, type PositionFill } from './venueBPositions.ts';

const W = '0x7839e2f2c375dd2935193f2736167514efff9916';
const fill = (timeMs: number, side: 'B' | 'A', size: number, price: number, startPosition: number, closedPnl = 0, wallet = W): PositionFill => ({
  timeMs,
  wallet,
  price,
  size,
  side,
  startPosition,
  closedPnl,
});

describe('positions derived from fills', () => {
  it('averages the entry when adding, keeps it when reducing, and clears it when flat', () => {
    const out = derivePositions([fill(1, 'B', 1, 100, 0), fill(2, 'B', 1, 110, 1), fill(3, 'A', 0.5, 120, 2, 7.5), fill(4, 'A', 1.5, 90, 1.5, -22.5)], new Map());
    expect(out.map((p) => [p.side, p.size, p.avgEntry, p.unrealizedPnl])).toEqual([
      ['long', 1, 100, 0],
      ['long', 2, 105, 10],
      ['long', 1.5, 105, 22.5],
      ['flat', 0, null, 0],
    ]);
  });

  it('recovers an unknown entry from the realised PnL of a reducing fill', () => {
    // A short of 3 opened before the ingested fills at 2000 (unknown to us).
    const out = derivePositions(
      [
        fill(1, 'A', 1, 1950, -3), // adds to the short: entry still unknown
        fill(2, 'B', 2, 1900, -4, ((2000 * 3 + 1950) / 4) * 2 - 1900 * 2), // closedPnl = (entry − price) × size for a short
      ],
      new Map(),
    );
    expect(out[0]).toMatchObject({ side: 'short', size: 4, avgEntry: null, unrealizedPnl: null });
    expect(out[1]!.side).toBe('short');
    expect(out[1]!.size).toBe(2);
    expect(out[1]!.avgEntry).toBeCloseTo(1987.5, 9);
    expect(out[1]!.unrealizedPnl).toBeCloseTo((1900 - 1987.5) * -2, 9);
  });

  it('opens the new side at the fill price when a fill flips the position', () => {
    const [p] = derivePositions([fill(1, 'B', 3, 60, -1, -10)], new Map([[W, { size: -1, entry: 50 }]]));
    expect(p).toMatchObject({ side: 'long', size: 2, avgEntry: 60 });
  });

  it("trusts a carried-in state only when its size matches the fill's start position", () => {
    const carried = new Map([[W, { size: 2, entry: 80 }]]);
    expect(derivePositions([fill(1, 'B', 1, 110, 2)], carried)[0]!.avgEntry).toBeCloseTo(90, 9);
    // The stored state says 2 but the venue says 5: fills were missed, the entry is unknown.
    expect(derivePositions([fill(1, 'B', 1, 110, 5)], carried)[0]!.avgEntry).toBeNull();
  });

  it('keeps one snapshot per wallet and time, valued at the last trade of that time', () => {
    const other = '0x162cc7c861ebd0c06b3d72319201150482518185';
    const out = derivePositions([fill(5, 'B', 1, 100, 0), fill(5, 'B', 1, 102, 1), fill(5, 'A', 1, 103, 0, 0, other)], new Map());
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ wallet: W, size: 2, avgEntry: 101, markPrice: 103, unrealizedPnl: 4 });
    expect(out[1]).toMatchObject({ wallet: other, side: 'short', size: 1, avgEntry: 103, markPrice: 103 });
  });
});
