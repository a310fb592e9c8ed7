import { formatUnits } from 'viem';

/**
 * A raw integer amount in token units, as the double nearest to the exact
 * decimal value (formatting first avoids the double rounding of
 * `Number(raw) / 10 ** decimals` on amounts above 2^53).
 */
export function scaleAmount(raw: bigint, decimals: number): number {
  return Number(formatUnits(raw, decimals));
}
