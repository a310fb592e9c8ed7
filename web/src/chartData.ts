/**
 * Aggregate rows → chart series: the x axis is the bucket start (time or
 * block), and there is one series per value column, split per group value
 * (Tron and Bitcoin buckets have one row per token). dex_v3 pivots are
 * already one column per token, so they become one series each.
 */
import type { Rows } from './rows.ts';

export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

export interface ChartData {
  readonly axis: 'time' | 'block';
  /** Bucket starts: epoch seconds for time, block numbers for blocks. */
  readonly x: readonly number[];
  readonly series: readonly Series[];
}

const BUCKET_COLUMNS = new Set(['time_start', 'time_end', 'block_start', 'block_end', 'time', 'block_number']);
/** Columns that split a bucket into rows rather than measure it. */
const GROUP_COLUMNS = new Set(['token']);

function bucketStart(v: unknown, axis: 'time' | 'block'): number | null {
  if (v === null || v === undefined) return null;
  if (axis === 'block') return Number(v);
  if (typeof v === 'number') return v;
  const ms = Date.parse(String(v));
  return Number.isNaN(ms) ? null : ms / 1000;
}

export function chartDataOf(rows: Rows): ChartData | null {
  const { columns } = rows;
  const xCol = ['time_start', 'block_start', 'time', 'block_number'].find((c) => columns.includes(c));
  if (!xCol) return null;
  const axis: 'time' | 'block' = xCol.startsWith('time') ? 'time' : 'block';
  const xi = columns.indexOf(xCol);
  const groupIdx = columns.map((c, i) => (GROUP_COLUMNS.has(c) ? i : -1)).filter((i) => i >= 0);
  const valueIdx = columns
    .map((c, i) => (!BUCKET_COLUMNS.has(c) && !GROUP_COLUMNS.has(c) ? i : -1))
    .filter((i) => i >= 0)
    .filter((i) => rows.rows.some((r) => typeof r[i] === 'number'));
  const xs = [...new Set(rows.rows.map((r) => bucketStart(r[xi], axis)).filter((v): v is number => v !== null))].sort((a, b) => a - b);
  const xPos = new Map(xs.map((x, i) => [x, i]));
  const groups = [...new Set(rows.rows.map((r) => groupIdx.map((g) => String(r[g])).join(' ')))];
  const series: Series[] = [];
  for (const group of groups) {
    for (const vi of valueIdx) {
      const values: (number | null)[] = xs.map(() => null);
      for (const r of rows.rows) {
        if (groupIdx.map((g) => String(r[g])).join(' ') !== group) continue;
        const x = bucketStart(r[xi], axis);
        const v = r[vi];
        if (x !== null && typeof v === 'number') values[xPos.get(x)!] = v;
      }
      series.push({ label: group ? `${columns[vi]} (${group})` : columns[vi]!, values });
    }
  }
  return { axis, x: xs, series };
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 6 });

/** A sentence for screen readers: how many buckets over what span, and each series' range. */
export function chartSummary(d: ChartData): string {
  if (!d.x.length) return 'No buckets.';
  const at = (x: number) => (d.axis === 'time' ? new Date(x * 1000).toISOString().replace('.000Z', 'Z') : `block ${fmt(x)}`);
  const parts = d.series.map((s) => {
    const vs = s.values.filter((v): v is number => v !== null);
    return vs.length ? `${s.label} from ${fmt(Math.min(...vs))} to ${fmt(Math.max(...vs))}` : `${s.label} empty`;
  });
  return `${d.x.length} bucket${d.x.length === 1 ? '' : 's'} from ${at(d.x[0]!)} to ${at(d.x[d.x.length - 1]!)}; ${d.series.length} series: ${parts.join('; ')}.`;
}
