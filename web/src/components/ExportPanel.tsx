/**
 * Export… : the query's whole result as files written on the server, one per
 * partition (POST /v1/exports). The price shown is the query's own estimate,
 * and the export is sent with it as max_cost, so it never costs more than
 * what was shown. While it runs, a progress bar follows its partitions; once
 * done, its files are listed, each downloaded with the key.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiCallError, call, getJson, type CostEstimate } from '../api.ts';

export interface ExportStatus {
  readonly id: string;
  readonly status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly partitions: number;
  readonly partitions_done: number;
  readonly rows: number;
  readonly bytes: number;
  readonly charged: number;
  readonly eta_seconds: number | null;
  readonly error: { readonly code: string; readonly error: string } | null;
}

interface ManifestFile {
  readonly name: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

type State =
  | { kind: 'form' }
  | { kind: 'starting' }
  | { kind: 'following'; status: ExportStatus }
  | { kind: 'done'; status: ExportStatus; files: readonly ManifestFile[] }
  | { kind: 'error'; message: string };

export interface ExportPanelProps {
  readonly apiKey: string;
  /** The API path of the endpoint, e.g. /v1/evm/erc20/events/transfer. */
  readonly path: string;
  /** The query's parameters as the form holds them (format and link left out). */
  readonly params: Readonly<Record<string, string>>;
  /** Whether the export is partitioned by days (venues, and chain queries over since/until) rather than blocks. */
  readonly byDays: boolean;
  /** The query's price, from the same estimate the Cost section shows. */
  readonly estimate: CostEstimate | null;
  readonly onCharged: () => void;
}

const n = (x: number) => x.toLocaleString('en-US');
const FINISHED = ['done', 'failed', 'cancelled'];
const POLL_MS = 500;

async function saveFile(target: string, name: string, apiKey: string): Promise<void> {
  const blob = await (await call(target, apiKey)).blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

export function ExportPanel({ apiKey, path, params, byDays, estimate, onCharged }: ExportPanelProps) {
  const [format, setFormat] = useState<'parquet' | 'csv'>('parquet');
  const [partition, setPartition] = useState(byDays ? '1' : '100000');
  const [state, setState] = useState<State>({ kind: 'form' });
  const id = state.kind === 'following' ? state.status.id : null;

  // Follows a running export until it ends; a finished one gets its file list.
  useEffect(() => {
    if (!id) return;
    let live = true;
    const base = `/v1/exports/${encodeURIComponent(id)}`;
    const poll = async () => {
      try {
        const status = await getJson<ExportStatus>(base, apiKey);
        if (!live) return;
        if (status.status === 'done') {
          const manifest = await getJson<{ files: ManifestFile[] }>(`${base}/manifest.json`, apiKey);
          if (live) setState({ kind: 'done', status, files: manifest.files });
          onCharged();
        } else if (FINISHED.includes(status.status)) {
          setState({ kind: 'error', message: `Export ${status.status}${status.error ? `: ${status.error.error}` : ''}.` });
          onCharged();
        } else {
          setState({ kind: 'following', status });
          timer = setTimeout(() => void poll(), POLL_MS);
        }
      } catch (e) {
        if (live) setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
      }
    };
    let timer = setTimeout(() => void poll(), POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, apiKey]);

  const size = Number(partition);
  const start = async () => {
    setState({ kind: 'starting' });
    try {
      const body = {
        endpoint: path,
        params: Object.fromEntries(Object.entries(params).filter(([, v]) => v.trim() !== '')),
        format,
        [byDays ? 'partition_days' : 'partition_blocks']: size,
        ...(estimate ? { max_cost: estimate.cost } : {}),
      };
      const res = await call('/v1/exports', apiKey, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const accepted = (await res.json()) as { id: string; partitions: number };
      setState({
        kind: 'following',
        status: { id: accepted.id, status: 'queued', partitions: accepted.partitions, partitions_done: 0, rows: 0, bytes: 0, charged: 0, eta_seconds: null, error: null },
      });
    } catch (e) {
      setState({ kind: 'error', message: e instanceof ApiCallError ? e.failure.message : String(e) });
    }
  };
  const cancel = async (exportId: string) => {
    try {
      await call(`/v1/exports/${encodeURIComponent(exportId)}`, apiKey, { method: 'DELETE' });
    } catch (e) {
      setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <section class="export" aria-labelledby="export-h" data-testid="export-panel">
      <h3 id="export-h">Export to files</h3>
      <div class="field">
        <label for="export-format">File format</label>
        <select id="export-format" value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value === 'csv' ? 'csv' : 'parquet')}>
          <option value="parquet">Parquet</option>
          <option value="csv">CSV</option>
        </select>
      </div>
      <div class="field">
        <label for="export-partition">{byDays ? 'Days per file' : 'Blocks per file'}</label>
        <input id="export-partition" type="number" min={1} value={partition} onInput={(e) => setPartition((e.target as HTMLInputElement).value)} />
      </div>
      <p data-testid="export-cost">
        {estimate ? (
          <>
            Costs <strong data-export-cost={estimate.cost}>{n(estimate.cost)} blocks</strong>, charged as its files are written; it is refused if it would cost more.
          </>
        ) : (
          'No price until the query is valid.'
        )}
      </p>
      <button type="button" disabled={!estimate || !(size >= 1) || state.kind === 'starting' || state.kind === 'following'} onClick={() => void start()}>
        Start export
      </button>
      {state.kind === 'following' ? (
        <div role="status">
          <progress data-testid="export-progress" max={Math.max(1, state.status.partitions)} value={state.status.partitions_done} /> {n(state.status.partitions_done)} of {n(state.status.partitions)}{' '}
          files
          {state.status.eta_seconds !== null ? `, about ${Math.ceil(state.status.eta_seconds)} s left` : ''}.{' '}
          <button type="button" onClick={() => void cancel(state.status.id)}>
            Cancel export
          </button>
        </div>
      ) : null}
      {state.kind === 'done' ? (
        <div role="status" data-testid="export-done" data-export-id={state.status.id}>
          <p>
            Done: {n(state.status.rows)} rows in {n(state.files.length)} files, {n(state.status.bytes)} bytes, {n(state.status.charged)} blocks charged.
          </p>
          <ul data-testid="export-files">
            {state.files.map((f) => (
              <li key={f.name}>
                <a
                  href={`/v1/exports/${encodeURIComponent(state.status.id)}/files/${encodeURIComponent(f.name)}`}
                  data-sha256={f.sha256}
                  onClick={(e) => {
                    // The file needs the key, which a plain link does not send.
                    e.preventDefault();
                    void saveFile(e.currentTarget.getAttribute('href') ?? '', f.name, apiKey).catch((err: unknown) => setState({ kind: 'error', message: String(err) }));
                  }}
                >
                  {f.name}
                </a>{' '}
                ({n(f.rows)} rows, {n(f.bytes)} bytes)
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {state.kind === 'error' ? (
        <p class="error" role="alert" data-testid="export-error">
          {state.message}
        </p>
      ) : null}
    </section>
  );
}
