/**
 * An export survives `kill -9` of its server: after a restart on the same
 * data it continues from its first unrecorded partition and ends with the
 * same files and the same charges as an export that was never interrupted,
 * and no file is left half-written under its final name.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey } from '../../src/metering/keys.ts';
import type { ExportView, Manifest } from '../../src/server/exports/view.ts';
import { spawnCli } from '../helpers/cli.ts';
import { createDemoStore, spawnServer, type ServerProcess } from '../helpers/metered.ts';

const ETH = DEMO_START_BLOCKS.ETH!;
const BODY = {
  endpoint: '/v1/evm/erc20/events/transfer',
  params: { network: 'ETH', token: 'USDT', block_start: ETH, block_end: ETH + 2_999 },
  format: 'csv',
  partition_blocks: 50,
};

describe('export resume after kill -9', () => {
  let dir: string;
  let key: string;
  let server: ServerProcess | null = null;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-crash-'));
    const store = await createDemoStore(dir);
    key = (await createKey(store, { plan: 'unlimited' })).key;
    await store.close();
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (s: ServerProcess, method: string, url: string, body?: unknown) => {
    const r = await fetch(`${s.url}${url}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
  };
  const json = <T>(r: { body: Buffer }): T => JSON.parse(r.body.toString('utf8')) as T;
  const view = async (s: ServerProcess, id: string) => json<ExportView>(await call(s, 'GET', `/v1/exports/${id}`));
  const settled = async (s: ServerProcess, id: string) => {
    for (;;) {
      const v = await view(s, id);
      if (v.status !== 'queued' && v.status !== 'running') return v;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const blocksUsed = async (s: ServerProcess) => json<{ blocks_used: number }>(await call(s, 'GET', '/v1/usage')).blocks_used;

  it('continues from the first unfinished partition and ends with the same files and charges as an uninterrupted export', async () => {
    server = await spawnServer(['--data', dir]);
    const posted = await call(server, 'POST', '/v1/exports', BODY);
    expect(posted.status, posted.body.toString()).toBe(202);
    const { id, cost, partitions } = json<{ id: string; cost: number; partitions: number }>(posted);
    expect(partitions).toBe(60);
    let before: ExportView;
    for (;;) {
      before = await view(server, id);
      if (before.partitions_done >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await server.stop('SIGKILL');
    expect(before.partitions_done).toBeLessThan(partitions);

    server = await spawnServer(['--data', dir]);
    const done = await settled(server, id);
    expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'done', partitions_done: partitions, cost, charged: cost });
    expect(await blocksUsed(server)).toBe(cost);
    const manifest = json<Manifest>(await call(server, 'GET', `/v1/exports/${id}/manifest.json`));
    expect(manifest.files).toHaveLength(partitions);
    // Only the finished files, each under its final name: nothing temporary is left beside them.
    expect(fs.readdirSync(path.join(dir, 'exports', id)).sort()).toEqual(manifest.files.map((f) => f.name).sort());

    // The same export, never interrupted, writes the very same files.
    const again = json<{ id: string }>(await call(server, 'POST', '/v1/exports', BODY));
    expect((await settled(server, again.id)).status).toBe('done');
    const reference = json<Manifest>(await call(server, 'GET', `/v1/exports/${again.id}/manifest.json`));
    expect(manifest.files.map(({ name, rows, bytes, sha256 }) => ({ name, rows, bytes, sha256 }))).toEqual(reference.files.map(({ name, rows, bytes, sha256 }) => ({ name, rows, bytes, sha256 })));
    for (const f of manifest.files.slice(0, 5)) {
      const file = await call(server, 'GET', `/v1/exports/${id}/files/${f.name}`);
      expect(createHash('sha256').update(file.body).digest('hex')).toBe(f.sha256);
    }
    expect(await blocksUsed(server)).toBe(2 * cost);

    // `chainq status` shows no export left running, and the files kept on disk.
    const status = await spawnCli(['status', '--data', dir, '--json']).done;
    const exports = (JSON.parse(status.stdout) as { exports: { unfinished: unknown[]; files: number; diskBytes: number } }).exports;
    const bytes = [...manifest.files, ...reference.files].reduce((a, f) => a + f.bytes, 0);
    expect(exports).toEqual({ unfinished: [], files: 2 * partitions, diskBytes: bytes });
  });
});
