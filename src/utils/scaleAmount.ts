/**
 * A raw integer amount in token units, as the double nearest to the exact
 * decimal value. Parsing `<raw>e-<decimals>` rounds once, correctly; the
 * shortcut `Number(raw) / 10 ** decimals` rounds twice above 2^53.
 */
export function scaleAmount(raw: bigint, decimals: number): number {
  return Number(`${raw}e-${decimals}`);
}
