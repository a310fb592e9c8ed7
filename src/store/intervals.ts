/** Intervals of block numbers or times, inclusive at both ends: what coverage is made of. */

export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/** The parts of [lo, hi] that `covered` (sorted, inclusive) does not contain. */
export function gaps(lo: number, hi: number, covered: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let next = lo;
  for (const c of covered) {
    if (c.hi < next) continue;
    if (c.lo > hi) break;
    if (c.lo > next) out.push({ lo: next, hi: Math.min(hi, c.lo - 1) });
    next = Math.max(next, c.hi + 1);
    if (next > hi) break;
  }
  if (next <= hi) out.push({ lo: next, hi });
  return out;
}

/** Sorted, merged union of intervals. */
export function union(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.lo - b.lo);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.lo <= last.hi + 1) out[out.length - 1] = { lo: last.lo, hi: Math.max(last.hi, i.hi) };
    else out.push(i);
  }
  return out;
}

/** The part of `a` inside `b` (both sorted, disjoint, inclusive). */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const x of a) {
    // Past b's intervals wholly below x; they are below every later x too.
    for (let y = b[j]; y !== undefined && y.hi < x.lo; y = b[++j]);
    for (let k = j, y = b[k]; y !== undefined && y.lo <= x.hi; y = b[++k]) {
      const lo = Math.max(x.lo, y.lo);
      const hi = Math.min(x.hi, y.hi);
      if (lo <= hi) out.push({ lo, hi });
    }
  }
  return out;
}
