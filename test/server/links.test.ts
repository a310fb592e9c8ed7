/** Link mode end to end: creation on venue and chain routes, download without a key, expiry and 410, S3. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { planVenue } from '../../src/query/planVenue.ts';
import { parseCsv, readParquet } from '../helpers/formats.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const TRADES = '/v1/exchange/venue_a/raw_trades?token=BTC&since=2025-12-01T01:00:00Z&until=2025-12-01T02:00:00Z';
const TRON = `/v1/tron/trc20/events/transfer?token=USDT&block_start=${DEMO_START_BLOCKS.TRON}&block_end=${DEMO_START_BLOCKS.TRON! + 500}`;
interface Link {
  status: string;
  url: string;
  expires_at: string;
  format: string;
  rows: number;
  bytes: number;
  sha256: string;
}
const idOf = (url: string) => url.split('/').at(-1)!;
const download = (t: TestApp, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: new URL(url).pathname, headers });
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

describe('link mode (local folder)', () => {
  let t: TestApp;
  let dir: string;
  let clock = Date.UTC(2026, 0, 1);
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-links-'));
    t = await createTestApp(undefined, { links: { dir, now: () => clock, ttlSeconds: 1800 } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const link = async (url: string) => {
    const r = await t.get(url);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    return JSON.parse(r.body) as Link;
  };

  it('answers a URL instead of the data, and the URL serves the same bytes without an API key', async () => {
    const direct = await t.get(TRADES);
    const body = await link(`${TRADES}&link=true`);
    expect(Object.keys(body)).toEqual(['status', 'url', 'expires_at', 'format', 'rows', 'bytes', 'sha256']);
    expect(body).toMatchObject({ status: 'success', format: 'csv', expires_at: '2026-01-01T00:30:00.000Z' });
    expect(body.url).toMatch(/^http:\/\/localhost(:80)?\/v1\/links\/[A-Za-z0-9_-]{43}$/);
    expect(body.rows).toBe(parseCsv(direct.body).rows.length);
    expect(body.bytes).toBe(Buffer.byteLength(direct.body));
    const got = await download(t, body.url);
    expect(got.statusCode).toBe(200);
    expect(got.body).toBe(direct.body);
    expect(got.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(got.headers['content-disposition']).toBe(`attachment; filename="exchange-venue_a-raw_trades-BTC-1764550800-1764554400.csv"`);
    expect(Number(got.headers['content-length'])).toBe(body.bytes);
  });

  it("the answer carries the file's SHA-256 and size; the download serves Repr-Digest and the same digest", async () => {
    const body = await link(`${TRON}&format=parquet&link=true`);
    const got = await download(t, body.url);
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.length).toBe(body.bytes);
    expect(sha256(got.rawPayload).toString('hex')).toBe(body.sha256);
    expect(got.headers['repr-digest']).toBe(`sha-256=:${sha256(got.rawPayload).toString('base64')}:`);
    expect(got.headers.etag).toBe(`"${body.sha256}"`);
    expect(got.headers['accept-ranges']).toBe('bytes');
  });

  it('serves Range requests as 206, so a broken download resumes to the same bytes', async () => {
    const body = await link(`${TRADES}&format=csv&link=true`);
    const whole = (await download(t, body.url)).rawPayload;
    const cut = Math.floor(body.bytes / 3);
    const first = await download(t, body.url, { range: `bytes=0-${cut - 1}` });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-${cut - 1}/${body.bytes}`);
    expect(Number(first.headers['content-length'])).toBe(cut);
    // The digest is that of the whole file, on partial answers too.
    expect(first.headers['repr-digest']).toBe(`sha-256=:${sha256(whole).toString('base64')}:`);
    const rest = await download(t, body.url, { range: `bytes=${cut}-`, 'if-range': `"${body.sha256}"` });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes ${cut}-${body.bytes - 1}/${body.bytes}`);
    const joined = Buffer.concat([first.rawPayload, rest.rawPayload]);
    expect(joined.equals(whole)).toBe(true);
    expect(sha256(joined).toString('hex')).toBe(body.sha256);
    const tail = await download(t, body.url, { range: 'bytes=-10' });
    expect(tail.rawPayload.equals(whole.subarray(whole.length - 10))).toBe(true);
    // An If-Range naming another file gets the whole (current) file.
    const stale = await download(t, body.url, { range: 'bytes=0-9', 'if-range': '"0000"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(whole)).toBe(true);
    const past = await download(t, body.url, { range: `bytes=${body.bytes}-` });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${body.bytes}`);
    expect(JSON.parse(past.body)).toMatchObject({ status: 'error', code: 'range_not_satisfiable', bytes: body.bytes });
  });

  it('works on chain routes with Parquet, and never for JSON', async () => {
    const body = await link(`${TRON}&format=parquet&link=true`);
    expect(body.format).toBe('parquet');
    const got = await download(t, body.url);
    expect(got.headers['content-type']).toBe('application/vnd.apache.parquet');
    const p = await readParquet(t.oracle, got.rawPayload);
    expect(p.rows.length).toBe(body.rows);
    expect(p.rows.length).toBe((JSON.parse((await t.get(TRON)).body) as { count: number }).count);
    for (const url of [`${TRON}&link=true`, `${TRON}&link=true&format=json`, '/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-01T06:00:00Z&format=json&link=true']) {
      const r = await t.get(url);
      expect(r.statusCode).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'conflicting_parameters', parameters: ['link', 'format'] });
    }
    expect(JSON.parse((await t.get(`${TRADES}&link=maybe`)).body)).toMatchObject({ code: 'invalid_parameter' });
  });

  it('offers the link parameter on every data route, chain and venue', () => {
    for (const r of dataRoutes()) expect(r.params.link?.type, r.path).toBe('boolean');
  });

  it('still needs a key to create a link, and refuses links that were never issued', async () => {
    const noKey = await t.app.inject({ method: 'GET', url: `${TRADES}&link=true` });
    expect(noKey.statusCode).toBe(401);
    for (const id of ['A'.repeat(43), 'short', '..%2F..%2Fchainq.duckdb']) {
      const r = await t.app.inject({ method: 'GET', url: `/v1/links/${id}` });
      expect(r.statusCode).toBe(404);
      expect(JSON.parse(r.body)).toMatchObject({ status: 'error', code: 'not_found' });
    }
  });

  it('answers 410 once the link has expired, and deletes its file', async () => {
    const body = await link(`${TRADES}&link=true`);
    const file = path.join(dir, `${idOf(body.url)}.csv`);
    expect(fs.existsSync(file)).toBe(true);
    clock += 1799_000;
    expect((await download(t, body.url)).statusCode).toBe(200);
    clock += 1_000;
    const gone = await download(t, body.url);
    expect(gone.statusCode).toBe(410);
    expect(JSON.parse(gone.body)).toMatchObject({ status: 'error', code: 'link_expired' });
    expect(fs.existsSync(file)).toBe(false);
    expect((await download(t, body.url)).statusCode).toBe(410);
  });

  it('plans and prices a link exactly like the plain query', async () => {
    const venue = dataRoutes().find((r) => r.path === '/v1/exchange/venue_a/raw_trades')!;
    const q = { token: 'BTC', since: '2025-12-01', until: '2025-12-01T06:00:00Z', format: 'csv' };
    const [a, b] = await Promise.all([planVenue({ store: t.store }, venue, q), planVenue({ store: t.store }, venue, { ...q, link: true })]);
    expect(b.cost).toEqual(a.cost);
    expect(b.sql).toBe(a.sql);
    const tron = dataRoutes().find((r) => r.path === '/v1/tron/trc20/events/transfer')!;
    const c = { token: 'USDT', block_start: DEMO_START_BLOCKS.TRON!, block_end: DEMO_START_BLOCKS.TRON! + 5000, format: 'parquet' };
    expect((await planRaw({ store: t.store }, tron, { ...c, link: true })).cost).toEqual((await planRaw({ store: t.store }, tron, c)).cost);
  });
});

describe('link mode (S3-compatible bucket)', () => {
  let t: TestApp;
  let server: S3rver;
  let s3: S3Client;
  let root: string;
  let clock = Date.UTC(2026, 0, 1);
  const bucket = 'chainq-links-test';
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-s3-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(root, 's3') });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    t = await createTestApp(undefined, {
      links: { dir: path.join(root, 'links'), now: () => clock, s3: { bucket, endpoint, prefix: 'q/', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
    });
  });
  afterAll(async () => {
    await t.close();
    s3.destroy();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('stores the result in the bucket, serves it through the link, and deletes it on expiry', async () => {
    const direct = await t.get(TRADES);
    const body = JSON.parse((await t.get(`${TRADES}&link=true`)).body) as Link;
    const key = `q/${idOf(body.url)}.csv`;
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(body.bytes);
    // Nothing of the payload stays in the local folder: only the link record.
    expect(fs.readdirSync(path.join(root, 'links'))).toEqual([`${idOf(body.url)}.json`]);
    const got = await download(t, body.url);
    expect(got.statusCode).toBe(200);
    expect(got.body).toBe(direct.body);
    expect(sha256(got.rawPayload).toString('hex')).toBe(body.sha256);
    const part = await download(t, body.url, { range: 'bytes=5-14' });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(direct.body.slice(5, 15));
    clock += 3600_000;
    expect((await download(t, body.url)).statusCode).toBe(410);
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).rejects.toMatchObject({ name: 'NotFound' });
  });
});
