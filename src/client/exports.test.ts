/**
 * Export jobs through the client against the real server: start, wait,
 * manifest, download checked against the manifest, cancel and refusals. A
 * proxy that corrupts file bytes on purpose stands for a delivery gone wrong,
 * which the real server never produces.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../demo/generate.ts';
import type { Store } from '../store/types.ts';
import { createDemoStore, createMeteredApp, plans, type MeteredApp } from '../../test/helpers/metered.ts';
import { ChecksumMismatchError, CostOverLimitError, createClient, ExportFailedError, InvalidRequestError, NotFoundError, type ExportStatus } from './index.ts';

let store: Store;
let m: MeteredApp;
let baseUrl: string;
const dirs: string[] = [];
const PLANS = plans({ roomy: { requests_per_minute: null, monthly_blocks: 10_000_000 } });
const ETH0 = DEMO_START_BLOCKS.ETH ?? 0;
/** 1,000 blocks of USDC transfers in four files of 250 blocks. */
const PARAMS = { network: 'ETH', token: 'USDC', block_start: ETH0, block_end: ETH0 + 999 } as const;

beforeAll(async () => {
  store = await createDemoStore();
  m = await createMeteredApp(store, { plans: PLANS });
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(m.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await m?.close();
  await store?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-'));
  dirs.push(d);
  return d;
};
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const client = async (url = baseUrl) => createClient({ baseUrl: url, apiKey: await m.newKey('roomy') });

describe('client.export', () => {
  it('starts an export, reports progress while waiting, and downloads every file with the manifest sha256 and size', async () => {
    const cq = await client();
    const job = await cq.export('evmErc20Transfer', PARAMS, { format: 'parquet', partitionBlocks: 250 });
    expect(job.accepted).toMatchObject({ id: job.id, status: 'queued', partitions: 4 });
    const seen: ExportStatus[] = [];
    const done = await job.wait({ intervalMs: 50, onProgress: (s) => seen.push(s) });
    expect(done).toMatchObject({ id: job.id, status: 'done', partitions: 4, partitions_done: 4, format: 'parquet' });
    expect(seen.at(-1)?.status).toBe('done');

    const manifest = await job.manifest();
    expect(manifest.files.map((f) => f.name)).toEqual([0, 1, 2, 3].map((i) => `part-${ETH0 + 250 * i}-${ETH0 + 250 * i + 249}.parquet`));
    const dir = tmp();
    const files = await job.download(dir);
    expect(files.map((f) => f.downloaded)).toEqual([true, true, true, true]);
    for (const f of manifest.files) {
      const local = path.join(dir, f.name);
      expect(fs.statSync(local).size).toBe(f.bytes);
      expect(sha256(local)).toBe(f.sha256);
    }
    expect(fs.readdirSync(dir).sort()).toEqual(manifest.files.map((f) => f.name).sort());
    expect(manifest.totals.rows).toBe(done.rows);
  });

  it('download keeps files already present and valid, and fetches again one corrupted on disk', async () => {
    const cq = await client();
    const job = await cq.export('/v1/evm/erc20/events/transfer', PARAMS, { format: 'csv', partitionBlocks: 500 });
    await job.wait({ intervalMs: 50 });
    const dir = tmp();
    const first = await job.download(dir);
    const [a, b] = first;
    if (!a || !b) throw new Error('expected two files');
    const good = fs.readFileSync(b.path);
    fs.writeFileSync(b.path, Buffer.concat([good.subarray(0, 10), Buffer.from('X'), good.subarray(11)]));
    const again = await job.download(dir);
    expect(again.map((f) => [f.name, f.downloaded])).toEqual([
      [a.name, false],
      [b.name, true],
    ]);
    expect(fs.readFileSync(b.path).equals(good)).toBe(true);
  });

  it('a file delivered with other bytes than the manifest says throws ChecksumMismatchError and leaves no file behind', async () => {
    const proxy = await corruptingProxy(baseUrl);
    try {
      const cq = await client(proxy.url);
      const job = await cq.export('evmErc20Transfer', PARAMS, { format: 'csv', partitionBlocks: 1000 });
      await job.wait({ intervalMs: 50 });
      const dir = tmp();
      const err = await job.download(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ChecksumMismatchError);
      const mismatch = err instanceof ChecksumMismatchError ? err : null;
      const [file] = (await job.manifest()).files;
      expect(mismatch?.file).toBe(file?.name);
      expect(mismatch?.expected.sha256).toBe(file?.sha256);
      expect(mismatch?.actual.sha256).not.toBe(file?.sha256);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('cancel() stops a running export, wait() then throws ExportFailedError, and the finished partitions still download', async () => {
    const cq = await client();
    const job = await cq.export('evmErc20Transfer', { ...PARAMS, block_end: ETH0 + 3_499 }, { format: 'csv', partitionBlocks: 10 });
    let seen = await job.status();
    while (seen.status === 'queued' || (seen.status === 'running' && seen.partitions_done === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await job.status();
    }
    const cancelled = await job.cancel();
    const err = await job.wait({ intervalMs: 50 }).catch((e: unknown) => e);
    // On a fast machine the 350 partitions may all be written before the cancel arrives.
    if (cancelled.status === 'done') return;
    expect(err).toBeInstanceOf(ExportFailedError);
    expect(err instanceof ExportFailedError ? err.job.status : null).toBe('cancelled');
    expect(cancelled.partitions_done).toBeGreaterThan(0);
    expect(cancelled.partitions_done).toBeLessThan(350);
    const files = await job.download(tmp());
    expect(files).toHaveLength(cancelled.partitions_done);
    expect((await cq.exports()).exports.map((e) => e.id)).toContain(job.id);
  });

  it('refusals are typed errors: max_cost over the price, an invalid parameter, another key’s export', async () => {
    const cq = await client();
    await expect(cq.export('evmErc20Transfer', PARAMS, { maxCost: 10 })).rejects.toBeInstanceOf(CostOverLimitError);
    await expect(cq.export('evmErc20Transfer', { ...PARAMS, network: 'NOPE' })).rejects.toBeInstanceOf(InvalidRequestError);
    const job = await cq.export('evmErc20Transfer', PARAMS, { partitionBlocks: 1000 });
    const other = await client();
    await expect(other.exportJob(job.id).status()).rejects.toBeInstanceOf(NotFoundError);
  });

  it('wait() stops on an aborted signal', async () => {
    const cq = await client();
    const job = await cq.export('evmErc20Transfer', PARAMS, { partitionBlocks: 1000 });
    const stop = new AbortController();
    stop.abort(new Error('stop waiting'));
    await expect(job.wait({ signal: stop.signal })).rejects.toThrow('stop waiting');
  });
});

/** Forwards to the server, but flips one byte of every export file it serves. */
async function corruptingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'));
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      void fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])), ...(body ? { body } : {}) }).then(
        async (answer) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          if (/\/files\//.test(req.url ?? '') && bytes.length > 0) bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
          res.end(bytes);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
