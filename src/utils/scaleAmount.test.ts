import { formatUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { scaleAmount } from './scaleAmount.ts';

describe('scaleAmount', () => {
  it('is the double nearest to the exact decimal amount, as parsing viem formatUnits output gives, for any size and sign', () => {
    const raws = [0n, 1n, 5n, 999999n, 2n ** 53n + 1n, 10n ** 30n + 7n, 123456789012345678901234567890123456789n, 2n ** 256n - 1n, -2990000000n, -(10n ** 18n) - 1n];
    for (const raw of raws) for (const d of [0, 1, 6, 8, 18, 27, 77]) expect(scaleAmount(raw, d)).toBe(Number(formatUnits(raw, d)));
  });
});
