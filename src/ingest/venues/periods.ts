/** UTC calendar periods that venue files and checkpoints are cut into. Bounds are epoch ms, inclusive. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface Period {
  /** YYYY-MM-DD, YYYY-MM or YYYYMMDD/H, as the source names it. */
  readonly label: string;
  readonly lo: number;
  readonly hi: number;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const dayLabel = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every UTC day that starts in [since, until), since rounded down to its day. */
export function utcDays(since: number, until: number): Period[] {
  const out: Period[] = [];
  for (let d = Math.floor(since / DAY_MS) * DAY_MS; d < until; d += DAY_MS) out.push({ label: dayLabel(d), lo: d, hi: d + DAY_MS - 1 });
  return out;
}

/** Every UTC month that overlaps [since, until). */
export function utcMonths(since: number, until: number): Period[] {
  const out: Period[] = [];
  const s = new Date(since);
  for (let y = s.getUTCFullYear(), m = s.getUTCMonth(); ; m++) {
    const lo = Date.UTC(y, m, 1);
    if (lo >= until) break;
    const hi = Date.UTC(y, m + 1, 1) - 1;
    const d = new Date(lo);
    out.push({ label: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`, lo, hi });
  }
  return out;
}

/** Every UTC hour that starts in [since, until), labelled YYYYMMDD/H as node data directories are. */
export function utcHours(since: number, until: number): Period[] {
  const out: Period[] = [];
  for (let h = Math.floor(since / HOUR_MS) * HOUR_MS; h < until; h += HOUR_MS) {
    const d = new Date(h);
    out.push({ label: `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}/${d.getUTCHours()}`, lo: h, hi: h + HOUR_MS - 1 });
  }
  return out;
}
