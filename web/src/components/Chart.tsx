/**
 * The buckets of an aggregate as a uPlot line chart: hover shows every
 * series' value at a bucket (uPlot's live legend), labelled checkboxes toggle
 * series, and a summary sentence plus a data table are its text alternative.
 * Series differ by orders of magnitude (a count beside token sums beside pool
 * liquidity), so each has its own y scale; the axes show the first two shown.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { chartSummary, type ChartData } from '../chartData.ts';

/** Hover values with six significant digits: prices are tiny, liquidity is huge. */
const showValue = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '--' : v.toLocaleString('en-US', { maximumSignificantDigits: 6 }));

const PALETTE = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563', '#65a30d', '#9333ea'];

/** The chart element keeps its uPlot instance, so a test can compare plotted points with the API's buckets. */
export interface ChartElement extends HTMLDivElement {
  uplot?: uPlot;
}

export function Chart({ data }: { readonly data: ChartData }) {
  const host = useRef<ChartElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [shown, setShown] = useState<boolean[]>(() => data.series.map(() => true));

  useEffect(() => setShown(data.series.map(() => true)), [data]);

  useEffect(() => {
    const el = host.current!;
    const visible = data.series.map((_, i) => i).filter((i) => shown[i] ?? true);
    const axisFor = (i: number | undefined, side: 1 | 3): uPlot.Axis[] =>
      i === undefined
        ? []
        : [
            {
              scale: `s${i}`,
              side,
              size: 80,
              label: data.series[i]!.label,
              stroke: PALETTE[i % PALETTE.length]!,
              ...(side === 1 ? { grid: { show: false } } : {}),
            },
          ];
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth || 800),
      height: 320,
      scales: { x: { time: data.axis === 'time' } },
      axes: [{ label: data.axis === 'time' ? 'bucket start (UTC)' : 'bucket start (block)' }, ...axisFor(visible[0], 3), ...axisFor(visible[1], 1)],
      legend: { live: true },
      series: [
        { label: data.axis === 'time' ? 'time' : 'block' },
        ...data.series.map((s, i) => ({
          label: s.label,
          scale: `s${i}`,
          show: shown[i] ?? true,
          value: showValue,
          stroke: PALETTE[i % PALETTE.length]!,
          width: 1.5,
          points: { show: data.x.length < 200 },
        })),
      ],
    };
    const u = new uPlot(opts, [[...data.x], ...data.series.map((s) => [...s.values])] as uPlot.AlignedData, el);
    plot.current = u;
    el.uplot = u;
    return () => {
      u.destroy();
      plot.current = null;
      delete el.uplot;
    };
  }, [data, shown]);

  // Redrawn with the new set of shown series, so that the axes follow it.
  const toggle = (i: number, on: boolean) => setShown((s) => s.map((v, j) => (j === i ? on : v)));

  const summary = chartSummary(data);
  const at = (x: number) => (data.axis === 'time' ? new Date(x * 1000).toISOString().replace('.000Z', 'Z') : String(x));
  return (
    <figure class="chart-figure" aria-describedby="chart-summary">
      <fieldset class="series-toggles">
        <legend>Series</legend>
        {data.series.map((s, i) => (
          <label key={s.label}>
            <input type="checkbox" checked={shown[i] ?? true} onChange={(e) => toggle(i, (e.target as HTMLInputElement).checked)} />
            <span class="swatch" style={{ background: PALETTE[i % PALETTE.length] }} aria-hidden="true" /> {s.label}
          </label>
        ))}
      </fieldset>
      <div class="chart" ref={host} role="img" aria-label={`Chart of the buckets. ${summary}`} />
      <figcaption id="chart-summary">{summary}</figcaption>
      <p class="note">Each series has its own scale (the axes show the first two shown); hover the chart for values, or open the table.</p>
      <details>
        <summary>Chart data as a table</summary>
        <table class="chart-data">
          <caption>{data.x.length} buckets</caption>
          <thead>
            <tr>
              <th scope="col">{data.axis === 'time' ? 'bucket start' : 'block'}</th>
              {data.series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.x.map((x, i) => (
              <tr key={x}>
                <th scope="row">{at(x)}</th>
                {data.series.map((s) => (
                  <td key={s.label}>{s.values[i] ?? ''}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
