/**
 * The result rows: sortable by any column (a button in each header), and
 * windowed, so that tens of thousands of rows scroll smoothly: only the rows
 * in view are in the document.
 */
import { useMemo, useState } from 'preact/hooks';
import { compareCells, type Rows } from '../rows.ts';

const ROW_HEIGHT = 26;
const VIEW_HEIGHT = 420;
const OVERSCAN = 10;

type Sort = { readonly column: number; readonly dir: 1 | -1 } | null;

export function ResultTable({ data }: { readonly data: Rows }) {
  const [sort, setSort] = useState<Sort>(null);
  const [top, setTop] = useState(0);
  const sorted = useMemo(() => {
    if (!sort) return data.rows;
    return [...data.rows].sort((a, b) => sort.dir * compareCells(a[sort.column] ?? null, b[sort.column] ?? null));
  }, [data, sort]);
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(sorted.length, Math.ceil((top + VIEW_HEIGHT) / ROW_HEIGHT) + OVERSCAN);
  const toggle = (i: number) => setSort((s) => (s && s.column === i ? (s.dir === 1 ? { column: i, dir: -1 } : null) : { column: i, dir: 1 }));
  const sortText = sort ? `, sorted by ${data.columns[sort.column]} ${sort.dir === 1 ? 'ascending' : 'descending'}` : '';
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus, so that the keyboard can scroll it
    <section class="table-view" style={{ maxHeight: `${VIEW_HEIGHT}px` }} onScroll={(e) => setTop((e.target as HTMLElement).scrollTop)} tabIndex={0} aria-label="result rows, scrollable">
      <table class="rows" aria-rowcount={sorted.length + 1}>
        <caption>
          {sorted.length.toLocaleString('en-US')} rows, {data.columns.length} columns{sortText}
        </caption>
        <thead>
          <tr aria-rowindex={1}>
            {data.columns.map((c, i) => (
              <th key={c} scope="col" aria-sort={sort?.column === i ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
                <button type="button" onClick={() => toggle(i)} title={`sort by ${c}`}>
                  {c}
                  <span aria-hidden="true">{sort?.column === i ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}</span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: an empty spacer row (Biome takes every tr for focusable); it only gives the windowed table its height */}
          {first > 0 ? <tr aria-hidden="true" style={{ height: `${first * ROW_HEIGHT}px` }} /> : null}
          {sorted.slice(first, last).map((r, k) => (
            <tr key={first + k} aria-rowindex={first + k + 2} style={{ height: `${ROW_HEIGHT}px` }}>
              {r.map((v, i) => (
                <td key={i} class={typeof v === 'number' ? 'num' : undefined}>
                  {v === null ? '' : String(v)}
                </td>
              ))}
            </tr>
          ))}
          {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: as above */}
          {last < sorted.length ? <tr aria-hidden="true" style={{ height: `${(sorted.length - last) * ROW_HEIGHT}px` }} /> : null}
        </tbody>
      </table>
    </section>
  );
}
