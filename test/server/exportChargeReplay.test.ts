/**
 * The crash window of an export's charges, made deterministic: the server
 * "dies" (its runner stops) after partition 1's charge was made durable and
 * before the partition was recorded. A new server on the same store and meter
 * resumes the export, writes partition 1 again and charges it again: the
 * meter backend, embedded or Redis, charges it once, so the export costs its
 * price exactly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import type { MeterBackend } from '../../src/metering/backend.ts';
import { createEmbeddedBackend } from '../../src/metering/embeddedBackend.ts';
import { findKey } from '../../src/metering/keys.ts';
import { createRedisBackend } from '../../src/metering/redisBackend.ts';
import { acceptedExport, settledExport } from '../helpers/exportJobs.ts';
import type { ExportView } from '../../src/server/exports/view.ts';
import type { Store, StoredExportPart } from '../../src/store/types.ts';
import { createDemoStore, createMeteredApp, plans, type MeteredApp } from '../helpers/metered.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';

const ETH = DEMO_START_BLOCKS.ETH!;
const BODY = {
  endpoint: '/v1/evm/erc20/events/transfer',
  params: { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 1_199 },
  format: 'csv',
  partition_blocks: 300,
};
const PLANS = plans({ big: { requests_per_minute: null, monthly_blocks: 1_000_000 } });

let store: Store;
let redis: RedisServer;
let dir: string;
beforeAll(async () => {
  store = await createDemoStore();
  redis = await startRedis();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-replay-'));
});
afterAll(async () => {
  await redis?.stop();
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The store, except that recording partition `dies` stops the server's runner
 * and fails, once: as `kill -9` would leave it, the partition's file is written
 * and its charge durable, the partition is not recorded and the export stays running.
 */
function dyingAt(s: Store, dies: number, server: () => MeteredApp): { store: Store; died: Promise<void> } {
  let died: () => void = () => undefined;
  const diedOnce = new Promise<void>((resolve) => {
    died = resolve;
  });
  let dead = false;
  const addPart = async (part: StoredExportPart) => {
    if (part.index === dies && !dead) {
      dead = true;
      // Stopping first: the runner then leaves the export as it is, to resume at the next start.
      void server().app.exports.stop();
      died();
      throw new Error('the server died here');
    }
    return s.exports.addPart(part);
  };
  return { store: { ...s, exports: { ...s.exports, addPart } }, died: diedOnce };
}

const settled = (m: MeteredApp, key: string, id: string): Promise<ExportView> => settledExport((url) => m.get(url, key), id);

const backends: [string, () => Promise<MeterBackend>][] = [
  ['embedded', async () => createEmbeddedBackend(store)],
  ['redis', () => createRedisBackend({ url: redis.url, prefix: 'replay' })],
];

describe.each(backends)('an export resumed after a crash between a partition charge and its record (%s meter)', (_name, backend) => {
  it('charges that partition once: the export costs its price exactly', async () => {
    let first: MeteredApp | null = null;
    const dying = dyingAt(store, 1, () => {
      if (!first) throw new Error('no server yet');
      return first;
    });
    first = await createMeteredApp(dying.store, { plans: PLANS, backend: await backend(), exports: { dir } });
    const key = await first.newKey('big');
    const keyId = (await findKey(store, key))?.id ?? '';
    const job = await acceptedExport(first.app, key, BODY);
    expect(job.partitions).toBe(4);
    await dying.died;
    await first.close();
    // Partitions 0 and 1 were charged; only partition 0 was recorded.
    const stored = await store.exports.get(job.id);
    expect(stored?.status).toBe('running');
    expect((await store.exports.parts(job.id)).map((p) => p.index)).toEqual([0]);

    const second = await createMeteredApp(store, { plans: PLANS, backend: await backend(), exports: { dir } });
    try {
      await second.app.ready();
      const done = await settled(second, key, job.id);
      expect(done).toMatchObject({ status: 'done', partitions_done: 4, charged: job.cost });
      expect((await second.meter.backend.usage({ keyId })).reduce((a, r) => a + r.blocks, 0)).toBe(job.cost);
      const charges = await second.meter.backend.recentCharges(keyId, (await second.meter.backend.usage({ keyId }))[0]?.period ?? '', 10);
      expect(charges.map((c) => c.requestId).sort()).toEqual([0, 1, 2, 3].map((i) => `${job.id}-${i}`));
    } finally {
      await second.close();
    }
  });
});
