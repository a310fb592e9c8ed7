/**
 * Export jobs end to end on a real server and store: partitions written as
 * files, read back with DuckDB and compared with the raw answers of the same
 * ranges; the manifest against the files; charges, cancellation, other keys,
 * refusals and expiry.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/createApp.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import { settledExport } from '../helpers/exportJobs.ts';
import type { ExportView, Manifest } from '../../src/server/exports/view.ts';
import { parseCsv, readParquet } from '../helpers/formats.ts';
import { createMeteredApp, plans, type MeteredApp } from '../helpers/metered.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const ETH = DEMO_START_BLOCKS.ETH!;
const TRANSFERS = '/v1/evm/erc20/events/transfer';
const PARAMS = { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 2_499 };

type App = Pick<TestApp, 'app'>;
const post = (t: App, key: string, body: unknown) =>
  t.app.inject({ method: 'POST', url: '/v1/exports', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
const get = (t: App, key: string, url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const query = (params: Record<string, string | number>) => new URLSearchParams(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))).toString();

async function accepted(r: LightMyRequestResponse): Promise<{ id: string; status: string; cost: number; partitions: number }> {
  expect(r.statusCode, r.body).toBe(202);
  return r.json();
}

/** Polls the export until it is no longer queued or running. */
const settled = (t: App, key: string, id: string): Promise<ExportView> => settledExport((url) => get(t, key, url), id);

// One demo store serves both apps: the plain one (unlimited key) and the metered one (plans and a clock of their own).
let t: TestApp;
let other: string;
let m: MeteredApp;
let clock = Date.UTC(2026, 0, 1);
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  other = (await createKey(t.store, { plan: 'unlimited' })).key;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-exports-test-'));
  m = await createMeteredApp(t.store, {
    plans: plans({
      small: { requests_per_minute: null, monthly_blocks: 2_000 },
      big: { requests_per_minute: null, monthly_blocks: 1_000_000 },
      capped: { requests_per_minute: null, monthly_blocks: null, export_max_blocks: 1_000 },
    }),
    exports: { dir, ttlSeconds: 3_600, now: () => clock },
  });
});
afterAll(async () => {
  await m?.close();
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('export jobs', () => {
  it('writes one parquet file per partition that reads back as the raw answer of its range, as the manifest describes it', async () => {
    const job = await accepted(await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, format: 'parquet', partition_blocks: 1_000 }));
    expect(job).toMatchObject({ status: 'queued', partitions: 3 });
    // Priced as one raw query over the whole range.
    const whole = await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, format: 'parquet' })}`);
    expect(job.cost).toBe(Number(whole.headers['x-request-cost']));

    const done = await settled(t, t.key, job.id);
    expect(done).toMatchObject({ status: 'done', partitions: 3, partitions_done: 3, cost: job.cost, charged: job.cost, error: null, eta_seconds: null });
    const m = await get(t, t.key, `/v1/exports/${job.id}/manifest.json`);
    expect(m.statusCode, m.body).toBe(200);
    const manifest: Manifest = m.json();
    expect(manifest.files.map((f) => f.name)).toEqual([`part-${ETH}-${ETH + 999}.parquet`, `part-${ETH + 1000}-${ETH + 1999}.parquet`, `part-${ETH + 2000}-${ETH + 2499}.parquet`]);
    expect(manifest.columns.map((c) => c.name)).toEqual(parseCsv((await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, block_end: ETH + 10, format: 'csv' })}`)).body).header);
    expect(manifest.columns.every((c) => c.type.length > 0)).toBe(true);

    let rows = 0;
    for (const f of manifest.files) {
      const file = await get(t, t.key, `/v1/exports/${job.id}/files/${f.name}`);
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.length).toBe(f.bytes);
      expect(sha256(file.rawPayload)).toBe(f.sha256);
      expect(file.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(f.sha256, 'hex').toString('base64')}:`);
      const raw = await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, block_start: f.block_start!, block_end: f.block_end!, format: 'parquet' })}`);
      expect(raw.statusCode, raw.body).toBe(200);
      const fromFile = await readParquet(t.oracle, file.rawPayload);
      const expected = await readParquet(t.oracle, raw.rawPayload);
      expect(fromFile.rows.length).toBe(f.rows);
      expect(fromFile).toEqual(expected);
      rows += f.rows;
      const hashes = await engineSql(t.oracle).all<{ number: bigint; hash: string }>('SELECT number, hash FROM blocks WHERE network = $n AND number IN ($a, $b) ORDER BY number', {
        n: 'ETH',
        a: f.block_start!,
        b: f.block_end!,
      });
      expect([f.first_block_hash, f.last_block_hash]).toEqual(hashes.map((h) => h.hash));
    }
    expect(rows).toBeGreaterThan(0);
    expect(manifest.totals).toEqual({ files: 3, rows, bytes: manifest.files.reduce((a, f) => a + f.bytes, 0) });
    expect(done.rows).toBe(rows);

    // Range requests resume a download, as link downloads do.
    const first = manifest.files[0]!;
    const part = await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}/files/${first.name}`, headers: { 'x-api-key': t.key, range: 'bytes=10-' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.length).toBe(first.bytes - 10);
  });

  it('writes csv and gzipped csv files whose rows, concatenated, are the raw csv answers of their ranges', async () => {
    for (const compression of [null, 'gzip'] as const) {
      const job = await accepted(await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, format: 'csv', ...(compression ? { compression } : {}), partition_blocks: 800 }));
      expect((await settled(t, t.key, job.id)).status).toBe('done');
      const manifest: Manifest = (await get(t, t.key, `/v1/exports/${job.id}/manifest.json`)).json();
      expect(manifest.files).toHaveLength(4);
      let header: string[] | null = null;
      const fileRows: Record<string, string>[] = [];
      const rawRows: Record<string, string>[] = [];
      for (const f of manifest.files) {
        expect(f.name).toMatch(compression ? /\.csv\.gz$/ : /\.csv$/);
        const body = (await get(t, t.key, `/v1/exports/${job.id}/files/${f.name}`)).rawPayload;
        expect(sha256(body)).toBe(f.sha256);
        const csv = parseCsv((compression ? gunzipSync(body) : body).toString('utf8'));
        header ??= csv.header;
        expect(csv.header).toEqual(header);
        expect(csv.rows).toHaveLength(f.rows);
        fileRows.push(...csv.rows);
        rawRows.push(...parseCsv((await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, block_start: f.block_start!, block_end: f.block_end!, format: 'csv' })}`)).body).rows);
      }
      expect(fileRows).toEqual(rawRows);
      expect(fileRows.length).toBeGreaterThan(0);
    }
  });

  it('partitions a venue export by days, named by dates, with the raw answer of its time range', async () => {
    const params = { token: 'BTC', since: '2025-12-01T00:00:00Z', until: '2025-12-01T06:00:00Z' };
    const job = await accepted(await post(t, t.key, { endpoint: '/v1/exchange/venue_a/raw_trades', params, format: 'csv' }));
    expect((await settled(t, t.key, job.id)).status).toBe('done');
    const manifest: Manifest = (await get(t, t.key, `/v1/exports/${job.id}/manifest.json`)).json();
    expect(manifest.files.map(({ name, time_start, time_end, first_block_hash }) => ({ name, time_start, time_end, first_block_hash }))).toEqual([
      { name: 'part-20251201-20251201.csv', time_start: '2025-12-01T00:00:00.000Z', time_end: '2025-12-01T06:00:00.000Z', first_block_hash: null },
    ]);
    const file = await get(t, t.key, `/v1/exports/${job.id}/files/${manifest.files[0]!.name}`);
    const raw = await get(t, t.key, `/v1/exchange/venue_a/raw_trades?${query({ ...params, format: 'csv' })}`);
    expect(file.body).toBe(raw.body);
    expect(manifest.files[0]!.rows).toBe(parseCsv(raw.body).rows.length);
  });

  it("shows another key's export to nobody but its owner: 404 on every route", async () => {
    const job = await accepted(await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, partition_blocks: 2_500 }));
    await settled(t, t.key, job.id);
    for (const url of [`/v1/exports/${job.id}`, `/v1/exports/${job.id}/manifest.json`, `/v1/exports/${job.id}/files/part-${ETH}-${ETH + 2499}.parquet`]) {
      const r = await get(t, other, url);
      expect(r.statusCode, url).toBe(404);
      expect(r.json()).toMatchObject({ code: 'not_found' });
    }
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/exports/${job.id}`, headers: { 'x-api-key': other } });
    expect(del.statusCode).toBe(404);
    expect((await get(t, other, '/v1/exports')).json()).toEqual({ exports: [] });
    expect(((await get(t, t.key, '/v1/exports')).json() as { exports: ExportView[] }).exports.map((e) => e.id)).toContain(job.id);
  });

  it("answers an endpoint's invalid parameters with the endpoint's own error, and charges nothing", async () => {
    const unknownParam = await post(t, t.key, { endpoint: TRANSFERS, params: { ...PARAMS, colour: 'red' } });
    const direct = await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, colour: 'red', format: 'parquet' })}`);
    expect(unknownParam.statusCode).toBe(400);
    expect(unknownParam.json()).toEqual(direct.json());
    const badToken = await post(t, t.key, { endpoint: TRANSFERS, params: { ...PARAMS, token: 'NOPE' } });
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json()).toEqual((await get(t, t.key, `${TRANSFERS}?${query({ ...PARAMS, token: 'NOPE', format: 'parquet' })}`)).json());
    expect((await post(t, t.key, { endpoint: '/v1/evm/nothing/here', params: {} })).statusCode).toBe(404);
    expect((await post(t, t.key, { endpoint: TRANSFERS, params: { ...PARAMS, format: 'csv' } })).json()).toMatchObject({ code: 'invalid_parameter' });
    expect((await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, format: 'parquet', compression: 'gzip' })).json()).toMatchObject({ code: 'conflicting_parameters' });
    expect((await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, partition_blocks: 0 })).json()).toMatchObject({ code: 'invalid_parameter' });
    expect((await post(t, t.key, { endpoint: TRANSFERS, params: PARAMS, max_cost: 100 })).json()).toMatchObject({ code: 'cost_over_limit', cost: 2499, max_cost: 100 });
  });

  it('exports a range wider than one request may cover, with no per-request limit', async () => {
    // 20,000 ARB blocks in csv: a single csv request may cover 10,000.
    const arb = DEMO_START_BLOCKS.ARB!;
    const wide = { network: 'ARB', token: 'USDC', block_start: arb, block_end: arb + 20_000 };
    expect((await get(t, t.key, `${TRANSFERS}?${query({ ...wide, format: 'csv' })}`)).json()).toMatchObject({ code: 'range_too_large' });
    const job = await accepted(await post(t, t.key, { endpoint: TRANSFERS, params: wide, format: 'csv', partition_blocks: 10_000 }));
    expect(job.partitions).toBe(3);
    expect(await settled(t, t.key, job.id)).toMatchObject({ status: 'done', charged: job.cost });
  });
});

describe('export charges', () => {
  const blocksUsed = async (key: string) => (await m.usage(key)).reduce((a, r) => a + r.blocks, 0);

  it('charges each partition its share when its file is complete, adding up to the price of the whole range', async () => {
    const key = await m.newKey('big');
    const job = await accepted(await post(m, key, { endpoint: TRANSFERS, params: PARAMS, partition_blocks: 700 }));
    const done = await settled(m, key, job.id);
    expect(done).toMatchObject({ status: 'done', charged: 2499, cost: 2499 });
    expect(await blocksUsed(key)).toBe(2499);
    // /metrics counts the partitions, their rows and bytes.
    const metrics = await m.app.metrics.render();
    expect(Number(/^chainq_export_partitions_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
    expect(Number(/^chainq_export_rows_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(done.rows);
    expect(Number(/^chainq_export_bytes_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(done.bytes);
    const usage = await m.app.inject({ method: 'GET', url: '/v1/usage?charges=10', headers: { 'x-api-key': key } });
    const charges = (usage.json() as { last_charges: { request_id: string; cost: number }[] }).last_charges;
    expect(charges.map((c) => c.request_id).sort()).toEqual([0, 1, 2, 3].map((i) => `${job.id}-${i}`));
  });

  it('refuses an export over the budget or the spend cap with 4xx, charging nothing', async () => {
    const key = await m.newKey('small');
    const over = await post(m, key, { endpoint: TRANSFERS, params: PARAMS });
    expect(over.statusCode).toBe(403);
    expect(over.json()).toMatchObject({ code: 'quota_exceeded' });
    const capped = await post(m, key, { endpoint: TRANSFERS, params: { ...PARAMS, block_end: ETH + 500 }, max_cost: 400 });
    expect(capped.statusCode).toBe(400);
    expect(capped.json()).toMatchObject({ code: 'cost_over_limit' });
    expect(await blocksUsed(key)).toBe(0);
    expect((await get(m, key, '/v1/exports')).json()).toEqual({ exports: [] });
  });

  it('stops a cancelled export after its finished partitions, which stay charged and downloadable', async () => {
    const key = await m.newKey('big');
    const job = await accepted(await post(m, key, { endpoint: TRANSFERS, params: { ...PARAMS, block_end: ETH + 2_999 }, partition_blocks: 30 }));
    expect(job.partitions).toBe(100);
    for (;;) {
      const v: ExportView = (await get(m, key, `/v1/exports/${job.id}`)).json();
      if (v.partitions_done >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const del = await m.app.inject({ method: 'DELETE', url: `/v1/exports/${job.id}`, headers: { 'x-api-key': key } });
    expect(del.statusCode).toBe(200);
    const cancelled: ExportView = del.json();
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.partitions_done).toBeLessThan(100);
    expect(cancelled.charged).toBeLessThan(job.cost);
    expect(await blocksUsed(key)).toBe(cancelled.charged);
    const manifest: Manifest = (await get(m, key, `/v1/exports/${job.id}/manifest.json`)).json();
    expect(manifest.files).toHaveLength(cancelled.partitions_done);
    expect(fs.readdirSync(path.join(dir, job.id)).sort()).toEqual(manifest.files.map((f) => f.name).sort());
    const file = await get(m, key, `/v1/exports/${job.id}/files/${manifest.files[0]!.name}`);
    expect(sha256(file.rawPayload)).toBe(manifest.files[0]!.sha256);
    // Still nothing more charged a while later.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await blocksUsed(key)).toBe(cancelled.charged);
  });

  it('removes the files once they expire, and then answers 404 for them', async () => {
    const key = await m.newKey('big');
    const job = await accepted(await post(m, key, { endpoint: TRANSFERS, params: PARAMS, partition_blocks: 2_500 }));
    const done = await settled(m, key, job.id);
    expect(done.expires_at).toBe(new Date(clock + 3_600_000).toISOString());
    const name = `part-${ETH}-${ETH + 2499}.parquet`;
    expect((await get(m, key, `/v1/exports/${job.id}/files/${name}`)).statusCode).toBe(200);
    expect(await m.app.exports.sweep()).toBe(0);
    clock += 3_600_000;
    expect(await m.app.exports.sweep()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(path.join(dir, job.id))).toBe(false);
    const gone = await get(m, key, `/v1/exports/${job.id}/files/${name}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toMatch(/expired/);
  });

  it("refuses an export over the plan's export_max_blocks, charging nothing", async () => {
    const key = await m.newKey('capped');
    const r = await post(m, key, { endpoint: TRANSFERS, params: PARAMS });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'range_too_large', limit: 1_000, requested: 2_499 });
    expect(await blocksUsed(key)).toBe(0);
  });
});

describe('export files delivered to an S3-compatible bucket', () => {
  let server: S3rver;
  let s3: S3Client;
  let root: string;
  let app: FastifyInstance;
  let s3Clock = Date.UTC(2026, 0, 1);
  const bucket = 'chainq-exports-test';
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-s3-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(root, 's3') });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    app = await createApp({
      store: t.store,
      exports: { dir: path.join(root, 'exports'), ttlSeconds: 60, now: () => s3Clock, s3: { bucket, endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
    });
  });
  afterAll(async () => {
    await app?.close();
    await server?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('puts each file in the bucket, names its object in the manifest, still serves it, and removes it on expiry', async () => {
    const job = await accepted(await post({ app }, t.key, { endpoint: TRANSFERS, params: PARAMS, partition_blocks: 1_500 }));
    expect((await settled({ app }, t.key, job.id)).status).toBe('done');
    const manifest: Manifest = (await get({ app }, t.key, `/v1/exports/${job.id}/manifest.json`)).json();
    expect(manifest.files).toHaveLength(2);
    for (const f of manifest.files) {
      const objectKey = `chainq-exports/${job.id}/${f.name}`;
      expect(f.url).toBe(`s3://${bucket}/${objectKey}`);
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }));
      const bytes = Buffer.from(await object.Body!.transformToByteArray());
      expect(sha256(bytes)).toBe(f.sha256);
      expect(bytes.length).toBe(f.bytes);
      const served = await get({ app }, t.key, `/v1/exports/${job.id}/files/${f.name}`);
      expect(served.rawPayload.equals(bytes)).toBe(true);
    }
    // Nothing stays on local disk once delivered.
    expect(fs.readdirSync(path.join(root, 'exports', job.id))).toEqual([]);
    s3Clock += 61_000;
    expect(await app.exports.sweep()).toBeGreaterThanOrEqual(1);
    const first = `chainq-exports/${job.id}/${manifest.files[0]!.name}`;
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: first }))).rejects.toThrow();
  });
});
