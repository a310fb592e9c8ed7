/**
 * The Prometheus metrics: each registry is its own; the ingestion and job
 * helpers the job runner calls; what a real app records per request (route
 * pattern, never the URL; body bytes; blocks charged; engine time; client
 * aborts); /metrics only where the operator puts it.
 */
import http from 'node:http';
import { register as globalRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createMetrics, type Metrics } from '../../src/internal/metrics.ts';
import { startMetricsListener } from '../../src/server/metricsListener.ts';
import { sample } from '../helpers/operatorMetrics.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

/** How long a counter may take to settle after the client is done, on a loaded machine. */
const SETTLE = { timeout: 10_000, interval: 50 };

describe('createMetrics', () => {
  it('keeps its series in its own registry, apart from other instances and the global one', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.jobs.failed('eth-follow');
    expect(sample(await a.render(), 'chainq_job_errors_total', { job: 'eth-follow' })).toBe(1);
    expect(sample(await b.render(), 'chainq_job_errors_total', { job: 'eth-follow' })).toBeUndefined();
    expect(await globalRegistry.metrics()).not.toContain('chainq_');
  });

  it('records ingestion batches and the lag behind the head per network', async () => {
    const m = createMetrics();
    m.ingest.batch({ network: 'ETH', dataset: 'evm/erc20/transfer', rows: 500, seconds: 2 });
    m.ingest.batch({ network: 'ETH', dataset: 'evm/erc20/transfer', rows: 300, seconds: 0.5 });
    m.ingest.head({ network: 'ETH', head: 1_000_012n, newest: 1_000_000n });
    const text = await m.render();
    const eth = { network: 'ETH', dataset: 'evm/erc20/transfer' };
    expect(sample(text, 'chainq_ingest_rows_total', eth)).toBe(800);
    expect(sample(text, 'chainq_ingest_rows_per_second', eth)).toBe(600);
    expect(sample(text, 'chainq_ingest_head_block', { network: 'ETH' })).toBe(1_000_012);
    expect(sample(text, 'chainq_ingest_newest_block', { network: 'ETH' })).toBe(1_000_000);
    expect(sample(text, 'chainq_ingest_lag_blocks', { network: 'ETH' })).toBe(12);
  });

  it('shows one current state per job and counts its errors from 0', async () => {
    const m = createMetrics();
    m.jobs.state('eth-follow', 'running');
    let text = await m.render();
    expect(sample(text, 'chainq_job_state', { job: 'eth-follow', state: 'running' })).toBe(1);
    expect(sample(text, 'chainq_job_errors_total', { job: 'eth-follow' })).toBe(0);
    m.jobs.failed('eth-follow');
    m.jobs.state('eth-follow', 'backoff');
    text = await m.render();
    expect(sample(text, 'chainq_job_state', { job: 'eth-follow', state: 'running' })).toBe(0);
    expect(sample(text, 'chainq_job_state', { job: 'eth-follow', state: 'backoff' })).toBe(1);
    expect(sample(text, 'chainq_job_errors_total', { job: 'eth-follow' })).toBe(1);
  });
});

describe('the HTTP metrics of a real app', () => {
  const ETH0 = DEMO_START_BLOCKS.ETH!;
  const ROUTE = '/v1/evm/erc20/events/transfer';
  const QUERY = `${ROUTE}?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 200}`;
  let t: TestApp;
  let metrics: Metrics;
  let base: string;
  beforeAll(async () => {
    metrics = createMetrics();
    t = await createTestApp(undefined, { metrics });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
  });
  const get = (url: string) => fetch(`${base}${url}`, { headers: { 'x-api-key': t.key } });

  it('counts a data response by route pattern and status, with its bytes, its charge and its engine time', async () => {
    const res = await get(`${QUERY}&format=csv`);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    const cost = Number(res.headers.get('x-request-cost'));
    expect(cost).toBeGreaterThan(0);
    // Counted when the response has finished on the server's side, which may be just after the client has the body.
    await vi.waitFor(async () => {
      const text = await metrics.render();
      expect(sample(text, 'chainq_http_requests_total', { method: 'GET', route: ROUTE, status: '200' })).toBe(1);
      expect(sample(text, 'chainq_http_request_duration_seconds_count', { method: 'GET', route: ROUTE, status: '200' })).toBe(1);
      expect(sample(text, 'chainq_http_response_bytes_total', { route: ROUTE })).toBe(body.length);
      expect(sample(text, 'chainq_blocks_charged_total', { route: ROUTE, plan: 'unlimited' })).toBe(cost);
      expect(sample(text, 'chainq_engine_query_seconds_count', { route: ROUTE, format: 'csv' })).toBe(1);
    }, SETTLE);
  });

  it('labels link downloads and unknown paths by pattern, so no id or URL becomes a series', async () => {
    const created = await get('/v1/exchange/venue_a/raw_trades?token=BTC&since=2025-12-01T01:00:00Z&until=2025-12-01T02:00:00Z&link=true');
    const { url } = (await created.json()) as { url: string };
    const downloaded = await fetch(url);
    await downloaded.arrayBuffer();
    await get('/v1/no/such/thing?secret=1');
    await get('/nowhere/else');
    const text = await vi.waitFor(async () => {
      const text = await metrics.render();
      expect(sample(text, 'chainq_http_requests_total', { method: 'GET', route: '/v1/links/:id', status: '200' })).toBe(1);
      expect(sample(text, 'chainq_http_requests_total', { method: 'GET', route: '/v1/*', status: '404' })).toBe(1);
      expect(sample(text, 'chainq_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      return text;
    }, SETTLE);
    expect(text).not.toContain(url.split('/').at(-1)!);
    expect(text).not.toMatch(/no\/such|nowhere/);
  });

  it('counts a client that leaves mid-download as an abort, and charges nothing for it', async () => {
    const before = sample(await metrics.render(), 'chainq_blocks_charged_total', { route: ROUTE, plan: 'unlimited' }) ?? 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}${ROUTE}?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 3000}&format=json&verbose=true`, { headers: { 'x-api-key': t.key } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
    });
    // Time for a wrong charge to land, then until the server has seen the client leave.
    await new Promise((r) => setTimeout(r, 300));
    const text = await vi.waitFor(async () => {
      const text = await metrics.render();
      expect(sample(text, 'chainq_http_client_aborts_total', { route: ROUTE })).toBe(1);
      return text;
    }, SETTLE);
    expect(sample(text, 'chainq_blocks_charged_total', { route: ROUTE, plan: 'unlimited' })).toBe(before);
  });

  it('does not serve /metrics on the API unless asked', async () => {
    expect((await get('/metrics')).status).toBe(404);
    const open = await createTestApp(null, { metricsRoute: true });
    try {
      const res = await open.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.body).toContain('# TYPE chainq_http_requests_total counter');
    } finally {
      await open.close();
    }
  });
});

describe('the metrics listener', () => {
  it('answers GET /metrics on its own port and nothing else', async () => {
    const metrics = createMetrics();
    metrics.ingest.head({ network: 'ETH', head: 10, newest: 7 });
    const listener = await startMetricsListener({ metrics, port: 0 });
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${listener.url}/metrics`);
      expect(res.status).toBe(200);
      expect(sample(await res.text(), 'chainq_ingest_lag_blocks', { network: 'ETH' })).toBe(3);
      const other = await fetch(`${listener.url}/v1/evm`);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ status: 'error', code: 'not_found' });
    } finally {
      await listener.close();
    }
  });
});
