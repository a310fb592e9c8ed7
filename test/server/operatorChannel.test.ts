/**
 * Several servers on one data directory (DuckDB opened read-only with
 * --redis, or servers of one ClickHouse on one machine): the first keeps the
 * operator channel and the others run without one, rather than taking its
 * socket over; a socket left by a server that died is replaced.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedBackend } from '../../src/metering/embeddedBackend.ts';
import { DEFAULT_PLANS } from '../../src/metering/plans.ts';
import { OperatorError, type OperatorContext } from '../../src/operator/actions.ts';
import { findServer, OPERATOR_FILE, socketPathFor } from '../../src/operator/channel.ts';
import { createJobManager } from '../../src/operator/jobManager.ts';
import { startOperatorChannel } from '../../src/server/operatorChannel.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';

let dir: string;
let store: Store;
let actions: OperatorContext;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-channel-'));
  store = await createStore({ dataDir: null, threads: 1 });
  actions = { store, plans: () => DEFAULT_PLANS, meterBackend: async () => createEmbeddedBackend(store) };
});

afterAll(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const channel = () => startOperatorChannel({ dataDir: dir, actions, jobs: createJobManager({ store, dataDir: dir }) });

describe('the operator channel of a shared data directory', () => {
  it('stays with the server that holds it; a second server gets none and the first still answers', async () => {
    const first = await channel();
    expect(first).not.toBeNull();
    try {
      expect(await channel()).toBeNull();
      const found = await findServer(dir);
      expect(found?.info.socket).toBe(first!.socket);
      expect(await found!.action('keys.list', {})).toEqual([]);
    } finally {
      await first!.close();
    }
    expect(fs.existsSync(socketPathFor(dir))).toBe(false);
    expect(fs.existsSync(path.join(dir, OPERATOR_FILE))).toBe(false);
    expect(await findServer(dir)).toBeNull();
  });

  it('goes to exactly one of several servers starting at once, and the others start without one', async () => {
    for (let round = 0; round < 5; round++) {
      const started = await Promise.all([channel(), channel(), channel()]);
      const held = started.filter((c) => c !== null);
      expect(held).toHaveLength(1);
      const found = await findServer(dir);
      expect(found?.info.pid).toBe(process.pid);
      expect(await found!.action('keys.list', {})).toEqual([]);
      await held[0]!.close();
      expect(await findServer(dir)).toBeNull();
    }
  });

  it('replaces the socket and file of a server that died', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(path.join(dir, OPERATOR_FILE), JSON.stringify({ pid: Number(dead), socket: socketPathFor(dir), startedAt: new Date(0).toISOString() }));
    fs.writeFileSync(socketPathFor(dir), '');
    const next = await channel();
    expect(next).not.toBeNull();
    try {
      expect((await findServer(dir))?.info.pid).toBe(process.pid);
    } finally {
      await next!.close();
    }
  });

  it("answers an action's input of the wrong shape with a 400 naming the field, and runs nothing", async () => {
    const held = await channel();
    try {
      const server = await findServer(dir);
      // Parsed JSON, as a client of another version or a hand-made request would send it.
      await expect(server?.action('keys.create', JSON.parse('{"plan": 5}'))).rejects.toThrow(new OperatorError('keys.create.plan: must be string'));
      await expect(server?.action('keys.revoke', JSON.parse('{}'))).rejects.toThrow('keys.revoke.idOrPrefix: required');
      expect(await server?.action('keys.list', {})).toEqual([]);
    } finally {
      await held?.close();
    }
  });
});
