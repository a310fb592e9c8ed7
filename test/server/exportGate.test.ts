/**
 * What a running export gives way to, on the real server: only requests that
 * run queries on the engine hold it back. Downloading a finished export's
 * files or a link's file, reading an export's status or manifest, and
 * answers from the catalog alone leave the engine to the export.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { acceptedExport, settledExport } from '../helpers/exportJobs.ts';
import type { Manifest } from '../../src/server/exports/view.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const ETH = DEMO_START_BLOCKS.ETH!;
const TRANSFERS = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH}&block_end=${ETH + 99}`;

let t: TestApp;
let exportId = '';
let fileName = '';
let linkPath = '';
beforeAll(async () => {
  t = await createTestApp();
  exportId = (
    await acceptedExport(t.app, t.key, {
      endpoint: '/v1/evm/erc20/events/transfer',
      params: { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 199 },
      format: 'csv',
      partition_blocks: 100,
    })
  ).id;
  expect((await settledExport((url) => t.get(url), exportId, 20)).status).toBe('done');
  const manifest: Manifest = (await t.get(`/v1/exports/${exportId}/manifest.json`)).json();
  fileName = manifest.files[0]?.name ?? '';
  const link = await t.get(`${TRANSFERS}&format=csv&link=true`);
  expect(link.statusCode, link.body).toBe(200);
  linkPath = new URL((link.json() as { url: string }).url).pathname;
});
afterAll(async () => {
  await t?.close();
});

/** How many times `run` made the gate count a request, and that every one it counted has ended. */
async function counted(run: () => Promise<{ statusCode: number; body: string }>): Promise<number> {
  const begin = vi.spyOn(t.app.exportGate, 'begin');
  try {
    const r = await run();
    expect(r.statusCode, r.body).toBeLessThan(300);
    expect(t.app.exportGate.inFlight()).toBe(0);
    return begin.mock.calls.length;
  } finally {
    begin.mockRestore();
  }
}

describe('requests that hold a running export back', () => {
  it('downloads of export files and of links, export status and manifests do not', async () => {
    expect(await counted(() => t.get(`/v1/exports/${exportId}/files/${fileName}`))).toBe(0);
    expect(await counted(() => t.get(`/v1/exports/${exportId}/files/${fileName}`, { range: 'bytes=0-9' }))).toBe(0);
    expect(await counted(() => t.app.inject({ method: 'GET', url: linkPath }))).toBe(0);
    expect(await counted(() => t.get(`/v1/exports/${exportId}`))).toBe(0);
    expect(await counted(() => t.get(`/v1/exports/${exportId}/manifest.json`))).toBe(0);
    expect(await counted(() => t.get('/v1/exports'))).toBe(0);
  });

  it('answers from the catalog alone do not', async () => {
    expect(await counted(() => t.get('/v1/protocols'))).toBe(0);
    expect(await counted(() => t.get('/v1/evm/erc20/networks'))).toBe(0);
  });

  it('data queries, links made, cost estimates and store-backed listings do, each once', async () => {
    expect(await counted(() => t.get(TRANSFERS))).toBe(1);
    expect(await counted(() => t.get(`${TRANSFERS}&format=parquet`))).toBe(1);
    expect(await counted(() => t.get(`${TRANSFERS}&format=csv&link=true`))).toBe(1);
    expect(
      await counted(() =>
        t.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, payload: JSON.stringify({ query: TRANSFERS }) }),
      ),
    ).toBe(1);
    expect(await counted(() => t.get('/v1/tokens'))).toBe(1);
  });
});
