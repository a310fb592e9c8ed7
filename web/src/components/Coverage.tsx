/**
 * What the server holds for the chosen dataset and network (GET /v1/coverage),
 * with shortcuts that fill the range: the last N blocks or the last hour/day
 * before the newest covered point.
 */
import type { CoverageEntry } from '../api.ts';

export interface RangeShortcut {
  readonly label: string;
  readonly values: Readonly<Record<string, string>>;
}

const n = (x: number) => x.toLocaleString('en-US');
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function shortcutsOf(entry: CoverageEntry): RangeShortcut[] {
  const out: RangeShortcut[] = [];
  const clear = { block_start: '', block_end: '', since: '', until: '' };
  const newestBlock = entry.newest.block;
  if (entry.unit === 'block' && newestBlock !== undefined) {
    const first = entry.ranges[entry.ranges.length - 1]?.from ?? 0;
    for (const size of [100, 1_000, 10_000]) {
      const start = Math.max(first, newestBlock - size + 1);
      out.push({ label: `last ${n(size)} blocks`, values: { ...clear, block_start: String(start), block_end: String(newestBlock) } });
    }
  }
  const newestMs = entry.newest.time ? Date.parse(entry.newest.time) : NaN;
  if (!Number.isNaN(newestMs)) {
    for (const [label, ms] of [
      ['last hour', 3_600_000],
      ['last day', 86_400_000],
    ] as const) {
      out.push({ label, values: { ...clear, since: isoSeconds(newestMs - ms), until: isoSeconds(newestMs) } });
    }
  }
  return out;
}

export interface CoverageProps {
  readonly state:
    | { readonly kind: 'none' }
    | { readonly kind: 'loading' }
    | { readonly kind: 'unavailable'; readonly why: string }
    | { readonly kind: 'entry'; readonly entry: CoverageEntry | null; readonly where: string };
  readonly onShortcut: (values: Readonly<Record<string, string>>) => void;
}

export function Coverage({ state, onShortcut }: CoverageProps) {
  if (state.kind === 'none') return <p class="coverage muted">Choose a network (or token) to see what is covered.</p>;
  if (state.kind === 'loading') return <p class="coverage muted">Reading coverage…</p>;
  if (state.kind === 'unavailable') return <p class="coverage muted">Coverage is not available: {state.why}</p>;
  const e = state.entry;
  if (!e)
    return (
      <p class="coverage" role="status">
        Nothing of this dataset is held for {state.where}: every range would be refused.
      </p>
    );
  const span = (r: { from: number; to: number; time_from?: string | null; time_to?: string | null }) =>
    e.unit === 'block' ? `blocks ${n(r.from)}–${n(r.to)}${r.time_from && r.time_to ? ` (${r.time_from} – ${r.time_to})` : ''}` : `${isoSeconds(r.from)} – ${isoSeconds(r.to)}`;
  return (
    <div class="coverage" role="status" aria-live="polite">
      <p>
        <strong>Covered for {state.where}:</strong> {e.ranges.map(span).join('; ') || 'nothing'}.
        {e.gaps.length ? <> Gaps: {e.gaps.map((g) => (e.unit === 'block' ? `${n(g.from)}–${n(g.to)}` : `${isoSeconds(g.from)} – ${isoSeconds(g.to)}`)).join('; ')}.</> : null}
        {e.newest.time ? (
          <>
            {' '}
            Newest: {e.newest.block !== undefined ? `block ${n(e.newest.block)} at ` : ''}
            {e.newest.time}.
          </>
        ) : null}
        {e.confirmations !== null ? <> Kept {e.confirmations} blocks behind the head.</> : null}
      </p>
      {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons, not a form section: a fieldset would draw the frame the form's fieldsets have */}
      <div class="shortcuts" role="group" aria-label="range shortcuts">
        {shortcutsOf(e).map((s) => (
          <button type="button" key={s.label} onClick={() => onShortcut(s.values)}>
            {s.label}
          </button>
        ))}
      </div>
    </div>
  );
}
