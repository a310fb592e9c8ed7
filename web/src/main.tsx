/**
 * The chainq explorer: pick a dataset from the server's catalog, price the
 * query as it is typed, run it, see rows and a chart, download it, copy it as
 * code, and share it as an address (/explore?q=<API path and query>).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiCallError, call, estimate, getJson, storeKey, storedKey, type ApiFailure, type CostEstimate, type CoverageEntry, type Usage } from './api.ts';
import { OUTPUT_PARAMS, RANGE_PARAMS, catalogFromOpenApi, eventsOf, families, findRoute, protocolsOf, type Catalog, type OpenApiDocument, type Route } from './catalog.ts';
import { chartDataOf } from './chartData.ts';
import { Chart } from './components/Chart.tsx';
import { Coverage, type CoverageProps } from './components/Coverage.tsx';
import { ExportPanel } from './components/ExportPanel.tsx';
import { ParamField } from './components/ParamField.tsx';
import { ResultTable } from './components/ResultTable.tsx';
import { UsagePanel } from './components/UsagePanel.tsx';
import { applyEvent, FOLLOW_START, streamPathOf, type FollowState } from './follow.ts';
import { followStream } from './followStream.ts';
import { excludedBy, fromTarget, shareUrl, toTarget, type Values } from './query.ts';
import { rowsFromCsv, rowsFromJson, type Cell, type Rows } from './rows.ts';
import { curlSnippet, pythonSnippet, typescriptSnippet } from './snippets.ts';
import './style.css';

const ORIGIN = window.location.origin;
const n = (x: number) => x.toLocaleString('en-US');

interface Selection {
  readonly family: string;
  readonly protocol: string;
  readonly event: string;
  readonly kind: 'raw' | 'aggregate';
}

interface RunResult {
  readonly target: string;
  readonly rows: Rows;
  readonly charged: number;
  readonly ms: number;
  readonly kind: 'raw' | 'aggregate';
}

type CostState = { kind: 'idle' } | { kind: 'pending' } | { kind: 'ok'; estimate: CostEstimate } | { kind: 'error'; failure: ApiFailure };

function firstSelection(c: Catalog): Selection {
  const family = families(c)[0]!;
  const protocol = protocolsOf(c, family)[0]!;
  return { family, protocol, event: eventsOf(c, family, protocol)[0]!, kind: 'raw' };
}

/** Which form fields an API error concerns: the one it names, or the ones a conflict names. */
function fieldsOf(f: ApiFailure, route: Route): string[] {
  const names = [...(f.parameter ? [f.parameter] : []), ...(f.parameters ?? [])];
  return names.filter((x) => route.params.some((p) => p.name === x));
}

function KeyBox({ apiKey, onKey }: { apiKey: string; onKey: (k: string) => void }) {
  const [draft, setDraft] = useState('');
  if (apiKey) {
    return (
      <div class="key saved">
        <span>
          API key <code>{apiKey.slice(0, 7)}…</code> is kept in this browser only.
        </span>
        <button type="button" onClick={() => onKey('')}>
          Forget key
        </button>
      </div>
    );
  }
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault();
        onKey(draft.trim());
      }}
    >
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autoComplete="off" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} placeholder="cq_…" aria-describedby="api-key-help" />
      <button type="submit" disabled={!draft.trim()}>
        Use key
      </button>
      <p id="api-key-help" class="help">
        Printed by <code>npm start</code> or <code>chainq keys create</code>. Stored in this browser's local storage; sent only to this server.
      </p>
    </form>
  );
}

function Snippets({ route, values, target }: { route: Route; values: Values; target: string }) {
  const [copied, setCopied] = useState('');
  const items: [string, string][] = [
    ['curl', curlSnippet(ORIGIN, target)],
    ['TypeScript (chainq/client)', typescriptSnippet(ORIGIN, route, values)],
    ['Python (chainq client)', pythonSnippet(ORIGIN, route, values)],
  ];
  const copy = async (label: string, text: string) => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(label);
  };
  return (
    <section aria-labelledby="code-h">
      <h2 id="code-h">As code</h2>
      {items.map(([label, text]) => (
        <div class="snippet" key={label}>
          <div class="snippet-head">
            <h3>{label}</h3>
            <button type="button" onClick={() => void copy(label, text)}>
              Copy {label.split(' ')[0]}
            </button>
          </div>
          <pre>
            <code>{text}</code>
          </pre>
        </div>
      ))}
      <p class="sr-only" role="status">
        {copied ? `${copied} copied` : ''}
      </p>
    </section>
  );
}

function FollowView({ state }: { state: FollowState }) {
  const rows = rowsFromJson(state.rows);
  const status = { following: 'Following', ended: 'Ended', stopped: 'Stopped', failed: 'Failed' }[state.status];
  return (
    <section class="results" aria-labelledby="follow-h">
      <h2 id="follow-h">Live</h2>
      <p role="status" data-testid="follow-summary" data-status={state.status}>
        {status}: <span data-rows={state.rows.length}>{n(state.rows.length)} rows</span>
        {state.undone ? <span data-undone={state.undone}>, {n(state.undone)} undone</span> : null}, delivered to block {state.delivered === null ? '…' : n(state.delivered)}
        {state.head === null ? '' : ` of ${n(state.head)}`}, <span data-charged={state.cost}>{n(state.cost)} blocks charged</span>.
      </p>
      {state.error ? (
        <p class="error" role="alert">
          {state.error}
        </p>
      ) : null}
      <p class="cursor">
        Cursor: <code data-testid="follow-cursor">{state.cursor ?? 'none yet'}</code>
      </p>
      <ResultTable data={rows} />
    </section>
  );
}

function App() {
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [loadError, setLoadError] = useState('');
  const [apiKey, setApiKey] = useState(storedKey());
  const [sel, setSel] = useState<Selection | null>(null);
  const [values, setValues] = useState<Values>({});
  const [cost, setCost] = useState<CostState>({ kind: 'idle' });
  const [result, setResult] = useState<RunResult | null>(null);
  const [runError, setRunError] = useState<ApiFailure | null>(null);
  const [running, setRunning] = useState(false);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [coverage, setCoverage] = useState<CoverageProps['state']>({ kind: 'none' });
  const [exporting, setExporting] = useState(false);
  const [download, setDownload] = useState<{ kind: 'busy' | 'done' | 'error'; text: string; url?: string } | null>(null);
  const restoredFromLink = useRef(false);
  const [follow, setFollow] = useState<FollowState | null>(null);
  const followAbort = useRef<AbortController | null>(null);

  // The catalog, from the server's OpenAPI document; then a shared ?q= address, if any.
  useEffect(() => {
    fetch('/openapi.json')
      .then((r) => r.json() as Promise<OpenApiDocument>)
      .then(
        (doc) => {
          const c = catalogFromOpenApi(doc);
          setCatalog(c);
          const q = new URLSearchParams(window.location.search).get('q');
          const restored = q ? fromTarget(c, q) : null;
          if (restored) {
            restoredFromLink.current = true;
            setSel({ family: restored.route.family, protocol: restored.route.protocol, event: restored.route.event, kind: restored.route.kind });
            setValues(restored.values);
          } else {
            if (q) setLoadError(`The shared query ${q} is not an endpoint of this server.`);
            setSel(firstSelection(c));
          }
        },
        (e: unknown) => setLoadError(`Could not read /openapi.json: ${String(e)}`),
      );
  }, []);

  const route = catalog && sel ? (findRoute(catalog, sel.family, sel.protocol, sel.event, sel.kind) ?? null) : null;
  const target = route ? toTarget({ route, values }) : '';

  // The address bar carries the query, so it can be shared as it is.
  useEffect(() => {
    if (!route) return;
    const url = `/explore?q=${encodeURIComponent(target)}`;
    if (`${window.location.pathname}${window.location.search}` !== url) window.history.replaceState(null, '', url);
  }, [target]);

  const refreshUsage = (key = apiKey) => {
    if (!key) return;
    getJson<Usage>('/v1/usage', key).then(setUsage, (e: unknown) => {
      if (e instanceof ApiCallError && e.failure.status === 401) setRunError(e.failure);
    });
  };
  useEffect(() => refreshUsage(), [apiKey]);

  // The price, as the user types (debounced), from POST /v1/calculate-cost.
  useEffect(() => {
    if (!route || !apiKey) {
      setCost({ kind: 'idle' });
      return;
    }
    setCost({ kind: 'pending' });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      estimate(target, apiKey, abort.signal).then(
        (est) => setCost({ kind: 'ok', estimate: est }),
        (e: unknown) => {
          if (e instanceof ApiCallError) setCost({ kind: 'error', failure: e.failure });
        },
      );
    }, 250);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [target, apiKey]);

  // Coverage of the chosen dataset on the chosen network (or venue token).
  const where = route
    ? route.family === 'exchange'
      ? values.token?.trim().toUpperCase()
      : route.networks && route.params.some((p) => p.name === 'network')
        ? values.network?.trim().toUpperCase()
        : route.networks?.[0]
    : undefined;
  useEffect(() => {
    if (!route || !apiKey || !where) {
      setCoverage({ kind: 'none' });
      return;
    }
    if (!catalog?.paths.has('/v1/coverage')) {
      setCoverage({ kind: 'unavailable', why: 'this server does not publish /v1/coverage.' });
      return;
    }
    setCoverage({ kind: 'loading' });
    let live = true;
    const qs = new URLSearchParams({ family: route.family, protocol: route.protocol, network: where });
    getJson<{ coverage: CoverageEntry[] }>(`/v1/coverage?${qs}`, apiKey).then(
      (r) => {
        if (live) setCoverage({ kind: 'entry', where, entry: r.coverage.find((c) => c.dataset === route.dataset) ?? null });
      },
      (e: unknown) => {
        if (live) setCoverage({ kind: 'unavailable', why: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      live = false;
    };
  }, [route?.dataset, where, apiKey]);

  if (loadError && !catalog)
    return (
      <main>
        <h1>chainq explorer</h1>
        <p class="error" role="alert">
          {loadError}
        </p>
      </main>
    );
  if (!catalog || !sel || !route)
    return (
      <main>
        <h1>chainq explorer</h1>
        <p role="status">Loading the catalog…</p>
      </main>
    );

  const choose = (next: Partial<Selection>) => {
    const family = next.family ?? sel.family;
    const protocol = next.family && !next.protocol ? protocolsOf(catalog, family)[0]! : (next.protocol ?? sel.protocol);
    const event = (next.family || next.protocol) && !next.event ? eventsOf(catalog, family, protocol)[0]! : (next.event ?? sel.event);
    const s: Selection = { family, protocol, event, kind: next.kind ?? sel.kind };
    const r = findRoute(catalog, s.family, s.protocol, s.event, s.kind)!;
    setSel({ ...s, kind: r.kind });
    // Keep what still applies to the new route.
    setValues((v) => Object.fromEntries(Object.entries(v).filter(([k]) => r.params.some((p) => p.name === k))));
    setResult(null);
    setRunError(null);
    stopFollowing();
    setFollow(null);
  };
  const setValue = (name: string, value: string) => setValues((v) => ({ ...v, [name]: value }));
  const setMany = (more: Values) => setValues((v) => ({ ...v, ...more }));

  const hasAggregate = catalog.routes.some((r) => r.dataset === route.dataset && r.kind === 'aggregate');
  const rangeParams = route.params.filter((p) => (RANGE_PARAMS as readonly string[]).includes(p.name));
  const outputParams = route.params.filter((p) => (OUTPUT_PARAMS as readonly string[]).includes(p.name));
  const otherParams = route.params.filter((p) => !rangeParams.includes(p) && !outputParams.includes(p));
  const tableFormat = route.formats.includes('json') ? 'json' : 'csv';

  // An error is shown at the field it names (the last run's, else the estimate's); others above the buttons.
  const failure = runError ?? (cost.kind === 'error' ? cost.failure : null);
  const fieldErrors = new Map<string, string>();
  if (failure) for (const f of fieldsOf(failure, route)) fieldErrors.set(f, failure.message);
  const generalError = failure && fieldErrors.size === 0 ? failure : null;

  const field = (p: Route['params'][number]) => (
    <ParamField
      key={p.name}
      param={p}
      value={values[p.name] ?? ''}
      onInput={(v) => {
        setValue(p.name, v);
        setRunError(null);
      }}
      excludedBy={excludedBy(route, values, p.name)}
      error={fieldErrors.get(p.name)}
    />
  );

  const run = async () => {
    setRunning(true);
    setRunError(null);
    const t0 = performance.now();
    const runTarget = toTarget({ route, values }, { format: tableFormat, link: '' });
    try {
      const res = await call(runTarget, apiKey);
      const rows = tableFormat === 'json' ? rowsFromJson(((await res.json()) as { events: Record<string, Cell>[] }).events) : rowsFromCsv(await res.text());
      setResult({ target: runTarget, rows, charged: Number(res.headers.get('x-request-cost') ?? 0), ms: performance.now() - t0, kind: route.kind });
    } catch (e) {
      setResult(null);
      setRunError(e instanceof ApiCallError ? e.failure : { status: 0, code: 'network', message: String(e) });
    } finally {
      setRunning(false);
      refreshUsage();
    }
  };

  const streamPath = streamPathOf(route);
  const stopFollowing = () => {
    followAbort.current?.abort();
    followAbort.current = null;
    // The aborted reader no longer updates the table (it is not the current one): say here that it stopped.
    setFollow((f) => (f?.status === 'following' ? { ...f, status: 'stopped' } : f));
  };
  // Follow: the stream route with the form's filters; rows arrive as blocks complete, undone rows leave the table.
  const startFollowing = async () => {
    if (!streamPath) return;
    stopFollowing();
    const abort = new AbortController();
    followAbort.current = abort;
    setResult(null);
    setRunError(null);
    const streamTarget = streamPath + toTarget({ route, values }, { format: '', link: '' }).slice(route.path.length);
    let state: FollowState = FOLLOW_START;
    setFollow(state);
    const update = (next: FollowState) => {
      state = next;
      if (followAbort.current === abort) setFollow(next);
    };
    try {
      await followStream(streamTarget, apiKey, (e) => update(applyEvent(state, e)), abort.signal);
      if (state.status === 'following') update({ ...state, status: 'failed', error: 'the connection was lost' });
    } catch (e) {
      if (abort.signal.aborted) update({ ...state, status: 'stopped' });
      else {
        if (e instanceof ApiCallError) setRunError(e.failure);
        update({ ...state, status: 'failed', error: e instanceof Error ? e.message : String(e) });
      }
    } finally {
      if (followAbort.current === abort) followAbort.current = null;
      refreshUsage();
    }
  };

  const downloadAs = async (format: string) => {
    setDownload({ kind: 'busy', text: `Preparing ${format}…` });
    try {
      const res = await call(toTarget({ route, values }, { format, link: '' }), apiKey);
      const blob = await res.blob();
      const name = /filename="?([^";]+)/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `${route.dataset.replaceAll('/', '_')}.${format}`;
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
      setDownload({ kind: 'done', text: `Downloaded ${name} (${n(blob.size)} bytes, ${res.headers.get('x-request-cost') ?? '?'} blocks charged).` });
    } catch (e) {
      setDownload({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
    } finally {
      refreshUsage();
    }
  };

  const getLink = async () => {
    const format = ['csv', 'parquet'].includes((values.format ?? '').toLowerCase()) ? values.format!.toLowerCase() : route.formats.includes('csv') ? 'csv' : 'parquet';
    setDownload({ kind: 'busy', text: 'Writing the file…' });
    try {
      const res = await call(toTarget({ route, values }, { format, link: 'true' }), apiKey);
      const body = (await res.json()) as { url: string; expires_at: string; rows: number; bytes: number };
      setDownload({
        kind: 'done',
        text: `${format.toUpperCase()} link, ${n(body.rows)} rows, ${n(body.bytes)} bytes, expires ${body.expires_at}. Anyone with it can download the file until then.`,
        url: body.url,
      });
    } catch (e) {
      setDownload({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
    } finally {
      refreshUsage();
    }
  };

  const chart = result && result.kind === 'aggregate' ? chartDataOf(result.rows) : null;
  const est = cost.kind === 'ok' ? cost.estimate : null;

  return (
    <>
      <header class="top">
        <h1>chainq explorer</h1>
        <nav>
          <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI</a>
        </nav>
      </header>
      <main>
        <KeyBox
          apiKey={apiKey}
          onKey={(k) => {
            storeKey(k);
            setApiKey(k);
            setUsage(null);
            setRunError(null);
          }}
        />
        {loadError ? (
          <p class="error" role="alert">
            {loadError}
          </p>
        ) : null}
        <div class="layout">
          <form
            class="query"
            aria-labelledby="query-h"
            onSubmit={(e) => {
              e.preventDefault();
              void run();
            }}
          >
            <h2 id="query-h">Query</h2>
            <fieldset class="pick">
              <legend>Dataset</legend>
              <div class="field">
                <label for="pick-family">Family</label>
                <select id="pick-family" value={sel.family} onChange={(e) => choose({ family: (e.target as HTMLSelectElement).value })}>
                  {families(catalog).map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="pick-protocol">Protocol</label>
                <select id="pick-protocol" value={sel.protocol} onChange={(e) => choose({ protocol: (e.target as HTMLSelectElement).value })}>
                  {protocolsOf(catalog, sel.family).map((p) => (
                    <option key={p} value={p}>
                      {p}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="pick-event">Event type</label>
                <select id="pick-event" value={sel.event} onChange={(e) => choose({ event: (e.target as HTMLSelectElement).value })}>
                  {eventsOf(catalog, sel.family, sel.protocol).map((ev) => (
                    <option key={ev} value={ev}>
                      {ev}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="pick-kind">Result</label>
                <select id="pick-kind" value={route.kind} disabled={!hasAggregate} onChange={(e) => choose({ kind: (e.target as HTMLSelectElement).value as 'raw' | 'aggregate' })}>
                  <option value="raw">rows</option>
                  {hasAggregate ? <option value="aggregate">aggregate (buckets)</option> : null}
                </select>
              </div>
              <p class="summary">
                <code>GET {route.path}</code> — {route.summary}
              </p>
            </fieldset>

            <fieldset>
              <legend>Parameters</legend>
              {otherParams.filter((p) => p.name === 'network' || p.name === 'token').map(field)}
              <div class="range">
                <h3>Range</h3>
                <Coverage
                  state={coverage}
                  onShortcut={(v) => {
                    setMany(v);
                    setRunError(null);
                  }}
                />
                <div class="range-fields">{rangeParams.map(field)}</div>
              </div>
              {otherParams.filter((p) => p.name !== 'network' && p.name !== 'token').map(field)}
              {outputParams.map(field)}
            </fieldset>

            <section class="price" aria-labelledby="price-h" aria-live="polite">
              <h2 id="price-h">Cost</h2>
              {!apiKey ? (
                <p class="muted">Enter an API key to price and run queries.</p>
              ) : cost.kind === 'pending' ? (
                <p class="muted">Pricing…</p>
              ) : est ? (
                <p data-testid="cost">
                  <strong>
                    <span data-cost={est.cost}>{n(est.cost)}</span> blocks
                  </strong>{' '}
                  — {est.breakdown.formula}. Budget left:{' '}
                  {est.quota_remaining >= Number.MAX_SAFE_INTEGER ? 'no limit' : `${n(est.quota_remaining)} blocks, ${n(est.quota_remaining_after)} after this query`}.
                </p>
              ) : (
                <p class="muted">No price until the query is valid.</p>
              )}
            </section>
            {generalError ? (
              <p class="error" role="alert" data-testid="query-error">
                {generalError.message}
              </p>
            ) : null}
            <div class="actions">
              <button type="submit" class="primary" disabled={!apiKey || running}>
                {running ? 'Running…' : 'Run'}
              </button>
              {streamPath ? (
                follow?.status === 'following' ? (
                  <button type="button" onClick={stopFollowing}>
                    Stop
                  </button>
                ) : (
                  <button type="button" disabled={!apiKey} onClick={() => void startFollowing()} title="Stream new blocks' rows live into the table">
                    Follow
                  </button>
                )
              ) : null}
              {route.formats.includes('csv') ? (
                <button type="button" disabled={!apiKey} onClick={() => void downloadAs('csv')}>
                  Download CSV
                </button>
              ) : null}
              {route.formats.includes('parquet') ? (
                <button type="button" disabled={!apiKey} onClick={() => void downloadAs('parquet')}>
                  Download Parquet
                </button>
              ) : null}
              {route.formats.includes('parquet') || route.formats.includes('csv') ? (
                <button type="button" disabled={!apiKey} aria-expanded={exporting} onClick={() => setExporting((x) => !x)}>
                  Export…
                </button>
              ) : null}
              {route.params.some((p) => p.name === 'link') ? (
                <button type="button" disabled={!apiKey} onClick={() => void getLink()}>
                  Get link
                </button>
              ) : null}
              <button type="button" onClick={() => void navigator.clipboard?.writeText(shareUrl(ORIGIN, target)).catch(() => undefined)}>
                Copy share link
              </button>
            </div>
            {download ? (
              <p class={download.kind === 'error' ? 'error' : 'status'} role={download.kind === 'error' ? 'alert' : 'status'}>
                {download.text}
                {download.url ? (
                  <>
                    {' '}
                    <a href={download.url} data-testid="link-url">
                      {download.url}
                    </a>
                  </>
                ) : null}
              </p>
            ) : null}
            {exporting && apiKey ? (
              <ExportPanel
                key={target}
                apiKey={apiKey}
                path={route.path}
                params={Object.fromEntries(Object.entries(values).filter(([k]) => !(OUTPUT_PARAMS as readonly string[]).includes(k)))}
                byDays={route.family === 'exchange' || (!values.block_start && !values.block_end && Boolean(values.since || values.until))}
                estimate={est}
                onCharged={() => refreshUsage()}
              />
            ) : null}
            {restoredFromLink.current && !result ? <p class="muted">This query was opened from a shared address; check its cost, then press Run.</p> : null}
          </form>

          <aside>{usage ? <UsagePanel usage={usage} /> : null}</aside>
        </div>

        {follow ? <FollowView state={follow} /> : null}
        {result ? (
          <section class="results" aria-labelledby="results-h">
            <h2 id="results-h">Result</h2>
            <p role="status" data-testid="result-summary">
              <span data-rows={result.rows.rows.length}>{n(result.rows.rows.length)} rows</span>, <span data-charged={result.charged}>{n(result.charged)} blocks charged</span>, {Math.round(result.ms)}{' '}
              ms.
            </p>
            {chart ? <Chart data={chart} /> : null}
            <ResultTable data={result.rows} />
          </section>
        ) : null}
        <Snippets route={route} values={values} target={target} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
