/**
 * A partition is charged and recorded while the engine writes the next one,
 * not before the next one starts; and when that charge or record fails, the
 * export fails without leaving the partition written meanwhile under its
 * final name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { acceptedExport, settledExport } from '../helpers/exportJobs.ts';
import type { ExportView } from '../../src/server/exports/view.ts';
import type { StoredExportPart } from '../../src/store/types.ts';
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

async function startExport(): Promise<string> {
  const job = await acceptedExport(t.app, t.key, {
    endpoint: '/v1/evm/erc20/events/transfer',
    params: { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 299 },
    format: 'csv',
    partition_blocks: 100,
  });
  return job.id;
}

const ended = (id: string): Promise<ExportView> => settledExport((url) => t.get(url), id, 20);

/**
 * Holds the record of the first partition until the export has begun writing
 * the next one (its file was asked for), then runs `then`.
 */
function holdFirstRecordUntilNextWrites(then: (part: StoredExportPart) => Promise<void>) {
  const put = vi.spyOn(t.app.exports.files, 'put');
  const next = `part-${ETH + 100}-${ETH + 199}.csv`;
  const nextBegan = () => put.mock.calls.some(([, name]) => name === next);
  const addPart = t.store.exports.addPart.bind(t.store.exports);
  const seen = { nextBegan: false };
  vi.spyOn(t.store.exports, 'addPart').mockImplementation(async (part) => {
    if (part.index === 0) {
      // Were the next partition written only after this record, it would not begin meanwhile: after a while the record goes on without it.
      const until = Date.now() + 10_000;
      while (!nextBegan() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
      seen.nextBegan = nextBegan();
      return then(part);
    }
    return addPart(part);
  });
  return seen;
}

describe('partitions charged and recorded while the next one is written', () => {
  it('begins writing the next partition before the one before is recorded, and ends with every partition recorded in order', async () => {
    const addPart = t.store.exports.addPart.bind(t.store.exports);
    const seen = holdFirstRecordUntilNextWrites((part) => addPart(part));
    const id = await startExport();
    const v = await ended(id);
    expect(v.status).toBe('done');
    expect(seen.nextBegan).toBe(true);
    const parts = await t.store.exports.parts(id);
    expect(parts.map((p) => p.index)).toEqual([0, 1, 2]);
    expect(v.partitions_done).toBe(3);
  });

  it('fails the export when a record fails, and removes the partition written meanwhile', async () => {
    const seen = holdFirstRecordUntilNextWrites(() => Promise.reject(new Error('the store refused the record')));
    const id = await startExport();
    const v = await ended(id);
    expect(seen.nextBegan).toBe(true);
    expect(v.status).toBe('failed');
    expect(await t.store.exports.parts(id)).toEqual([]);
    // The second partition was written while the first was being recorded: it is not left under its final name.
    const folder = path.join(t.app.exports.files.dir, id);
    const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    expect(names).not.toContain(`part-${ETH + 100}-${ETH + 199}.csv`);
    expect(names.filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });
});
