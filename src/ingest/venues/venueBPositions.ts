/**
 * venue_b positions, derived from fills. The node's fills carry each
 * wallet's position size before the fill (`startPosition`) but no entry
 * price and no mark, so:
 *
 * - size: `startPosition` ± the fill size (B adds, A subtracts). Because
 *   `startPosition` is authoritative, sizes are right even when earlier fills
 *   were never ingested.
 * - average entry, carried per wallet and token:
 *   - opening from flat, or flipping sides: the fill price;
 *   - adding to the position: the size-weighted mean of entry and fill price;
 *   - reducing: unchanged; when it is not known yet (the position opened
 *     before the ingested fills), it is recovered from the fill's realised
 *     PnL: closedPnl = (price − entry) × size × (+1 long, −1 short);
 *   - closing to flat: none.
 *   The state carried in is the wallet's latest stored snapshot; it is only
 *   trusted when its size equals the fill's `startPosition`.
 * - one snapshot per wallet, token and fill time (the state after the last
 *   fill of that wallet at that time), valued at the mark: the price of the
 *   token's last fill at that time (the block's last trade), since the fills
 *   carry no mark price.
 * - unrealized_pnl = (mark − entry) × signed size; 0 when flat; null when the
 *   entry is unknown.
 */

export interface PositionFill {
  readonly timeMs: number;
  readonly wallet: string;
  readonly price: number;
  readonly size: number;
  /** B (buy) or A (sell). */
  readonly side: string;
  readonly startPosition: number;
  readonly closedPnl: number;
}

export interface PositionState {
  /** Signed: long > 0, short < 0. */
  readonly size: number;
  readonly entry: number | null;
}

export interface PositionSnapshot {
  readonly timeMs: number;
  readonly wallet: string;
  readonly side: 'long' | 'short' | 'flat';
  /** Absolute size. */
  readonly size: number;
  readonly avgEntry: number | null;
  readonly markPrice: number;
  readonly unrealizedPnl: number | null;
}

/** Sizes are decimal strings of a few places; strip binary noise from sums. */
const clean = (x: number) => Number(x.toFixed(10));
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Snapshots for fills given in execution order (block, then position in the
 * block). `prior` holds each wallet's state before the first of these fills.
 */
export function derivePositions(fills: readonly PositionFill[], prior: ReadonlyMap<string, PositionState>): PositionSnapshot[] {
  const state = new Map(prior);
  const mark = new Map<number, number>();
  for (const f of fills) mark.set(f.timeMs, f.price);
  const last = new Map<string, { timeMs: number; wallet: string; state: PositionState }>();
  for (const f of fills) {
    const delta = f.side === 'B' ? f.size : -f.size;
    const start = f.startPosition;
    const known = state.get(f.wallet);
    const entry = known && same(known.size, start) ? known.entry : null;
    const next = clean(start + delta);
    let nextEntry: number | null;
    if (start === 0 || Math.sign(start) === Math.sign(delta)) {
      nextEntry = start === 0 ? f.price : entry === null ? null : (entry * Math.abs(start) + f.price * f.size) / (Math.abs(start) + f.size);
    } else if (same(Math.abs(delta), Math.abs(start))) {
      nextEntry = null;
    } else if (Math.abs(delta) < Math.abs(start)) {
      nextEntry = entry ?? (f.size > 0 ? f.price - f.closedPnl / (f.size * Math.sign(start)) : null);
    } else {
      nextEntry = f.price; // flipped: the new side opened at this fill
    }
    const s: PositionState = { size: next, entry: next === 0 ? null : nextEntry };
    state.set(f.wallet, s);
    last.set(`${f.wallet}\u0000${f.timeMs}`, { timeMs: f.timeMs, wallet: f.wallet, state: s });
  }
  return [...last.values()].map(({ timeMs, wallet, state: s }) => {
    const markPrice = mark.get(timeMs)!;
    return {
      timeMs,
      wallet,
      side: s.size > 0 ? 'long' : s.size < 0 ? 'short' : 'flat',
      size: Math.abs(s.size),
      avgEntry: s.entry,
      markPrice,
      unrealizedPnl: s.size === 0 ? 0 : s.entry === null ? null : (markPrice - s.entry) * s.size,
    };
  });
}
