/**
 * A running export's status is answered from its runner, not the store: a
 * client polling it every few milliseconds costs the engine, busy writing the
 * export, no query. It shows what the store holds all the same, and only to
 * the key that made the export.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import type { ExportView } from '../../src/server/exports/view.ts';
import type { StoredExportPart } from '../../src/store/types.ts';
import { acceptedExport, settledExport } from '../helpers/exportJobs.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const ETH = DEMO_START_BLOCKS.ETH!;

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

describe('status of a running export', () => {
  it('is read from the runner while it runs, matches the store, and is 404 to another key', async () => {
    // The second partition's record waits until the test has read the status: the export stays running with one partition done.
    let recordSecond: () => void = () => undefined;
    const secondHeld = new Promise<void>((resolve) => {
      recordSecond = resolve;
    });
    const addPart = t.store.exports.addPart.bind(t.store.exports);
    let firstRecorded: (part: StoredExportPart) => void = () => undefined;
    const first = new Promise<StoredExportPart>((resolve) => {
      firstRecorded = resolve;
    });
    vi.spyOn(t.store.exports, 'addPart').mockImplementation(async (part) => {
      if (part.index === 1) await secondHeld;
      await addPart(part);
      if (part.index === 0) firstRecorded(part);
    });
    const job = await acceptedExport(t.app, t.key, {
      endpoint: '/v1/evm/erc20/events/transfer',
      params: { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 299 },
      format: 'csv',
      partition_blocks: 100,
    });
    const part = await first;

    const get = vi.spyOn(t.store.exports, 'get');
    const parts = vi.spyOn(t.store.exports, 'parts');
    const res = await t.get(`/v1/exports/${job.id}`);
    expect(res.statusCode).toBe(200);
    const running = res.json<ExportView>();
    expect(running).toMatchObject({ id: job.id, status: 'running', partitions: 3, partitions_done: 1, rows: part.rows, bytes: part.bytes, charged: part.charge });
    // Its pace so far (one partition of three) gives an estimate of the time left.
    expect(running.eta_seconds).toEqual(expect.any(Number));
    expect(get).not.toHaveBeenCalled();
    expect(parts).not.toHaveBeenCalled();
    // What the store holds for it now is what the runner answered.
    expect((await t.store.exports.get(job.id))?.status).toBe('running');
    expect(await t.store.exports.parts(job.id)).toEqual([part]);

    const { key: other } = await createKey(t.store, { plan: 'unlimited' });
    const foreign = await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: { 'x-api-key': other } });
    expect(foreign.statusCode).toBe(404);

    recordSecond();
    const done = await settledExport((url) => t.get(url), job.id, 20);
    expect(done).toMatchObject({ status: 'done', partitions_done: 3 });
    // Ended, it is read from the store again.
    get.mockClear();
    expect((await t.get(`/v1/exports/${job.id}`)).json<ExportView>().status).toBe('done');
    expect(get).toHaveBeenCalled();
  });
});
