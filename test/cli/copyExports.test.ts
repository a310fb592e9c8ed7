/**
 * `chainq copy` moves export jobs and their finished partitions with the
 * store: on the ClickHouse copy an export reads back as it was (status,
 * charges, files' hashes, its JSON parameters and an error message with
 * quotes, commas and a line break), and a change made there afterwards
 * wins over the copied row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, openStoreAt } from '../../src/store/openStore.ts';
import { parseStoreTarget } from '../../src/store/target.ts';
import type { StoredExport, StoredExportPart } from '../../src/store/types.ts';
import { runCli } from '../helpers/cli.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-copy-exports-'));
const duckDir = path.join(root, 'duck');
const chDir = path.join(root, 'ch');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const DONE: StoredExport = {
  id: 'exp_done',
  keyId: 'key_a',
  status: 'done',
  endpoint: '/v1/evm/erc20/events/transfer',
  params: JSON.stringify({ network: 'ETH', token: 'USDT,USDC', block_start: 100, block_end: 299 }),
  format: 'parquet',
  compression: null,
  partitionBy: 'blocks',
  rangeStart: 100,
  rangeEnd: 299,
  partitionSize: 100,
  partitions: 2,
  cost: 400,
  columns: JSON.stringify([{ name: 'block_num', type: 'BIGINT' }]),
  createdAt: new Date('2026-11-01T10:00:00.000Z'),
  finishedAt: new Date('2026-11-01T10:05:00.000Z'),
  expiresAt: new Date('2026-11-08T10:05:00.000Z'),
  errorCode: null,
  errorMessage: null,
  filesRemoved: false,
};

const FAILED: StoredExport = {
  ...DONE,
  id: 'exp_failed',
  keyId: 'key_b',
  status: 'failed',
  format: 'csv',
  compression: 'gzip',
  partitionBy: 'time',
  rangeStart: Date.parse('2026-10-01T00:00:00Z'),
  rangeEnd: Date.parse('2026-10-03T00:00:00Z'),
  partitionSize: 86_400_000,
  createdAt: new Date('2026-11-02T10:00:00.000Z'),
  errorCode: 'internal_error',
  errorMessage: 'the export "failed", on the server;\nthe partitions already written stay',
  filesRemoved: true,
};

const part = (job: StoredExport, index: number, start: number, end: number): StoredExportPart => ({
  exportId: job.id,
  index,
  name: `part-${start}-${end}.${job.compression === 'gzip' ? 'csv.gz' : job.format}`,
  rangeStart: start,
  rangeEnd: end,
  rows: 1000 + index,
  bytes: 20_000 + index,
  sha256: `${index}`.repeat(64),
  firstBlockHash: job.partitionBy === 'blocks' ? `0x${'a'.repeat(63)}${index}` : null,
  lastBlockHash: job.partitionBy === 'blocks' ? `0x${'b'.repeat(63)}${index}` : null,
  charge: 200,
  url: index === 1 ? `s3://bucket/chainq-exports/${job.id}/part.parquet` : null,
});

const PARTS = [part(DONE, 0, 100, 199), part(DONE, 1, 200, 299), part(FAILED, 0, FAILED.rangeStart, FAILED.rangeStart + 86_400_000)];

beforeAll(async () => {
  const duck = await createStore({ dataDir: duckDir });
  try {
    for (const job of [DONE, FAILED]) await duck.exports.save(job);
    for (const p of PARTS) await duck.exports.addPart(p);
  } finally {
    await duck.close();
  }
});

describe('chainq copy and export jobs', () => {
  it('copies every export and its finished partitions into ClickHouse, field for field', async () => {
    const r = await runCli(['copy', '--from', `duckdb:${duckDir}`, '--to', `chdb:${chDir}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('export_jobs: 2 rows');
    expect(r.stdout).toContain('export_parts: 3 rows');
    const ch = await openStoreAt(parseStoreTarget(`chdb:${chDir}`));
    try {
      expect(await ch.exports.all()).toEqual([FAILED, DONE]);
      expect(await ch.exports.list('key_a')).toEqual([DONE]);
      expect(await ch.exports.parts(DONE.id)).toEqual(PARTS.slice(0, 2));
      expect(await ch.exports.parts(FAILED.id)).toEqual(PARTS.slice(2));
    } finally {
      await ch.close();
    }
  });

  it('a change saved on the ClickHouse copy afterwards replaces the copied row', async () => {
    const ch = await openStoreAt(parseStoreTarget(`chdb:${chDir}`));
    try {
      await ch.exports.save({ ...DONE, filesRemoved: true });
      expect(await ch.exports.get(DONE.id)).toEqual({ ...DONE, filesRemoved: true });
    } finally {
      await ch.close();
    }
  });
});
