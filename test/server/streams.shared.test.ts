/**
 * The streams that one committed block wakes share their look at the store:
 * one snapshot for all of them, whatever their number, and each still gets
 * the new block. Counted on the real store the app serves from.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalHash, chainMark } from '../../src/store/chainLog.ts';
import { openStream, type OpenStream } from '../helpers/sse.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const STREAM = '/v1/evm/erc20/events/transfer/stream?network=ETH&token=USDC';
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, 'c')}`;

let t: TestApp;
let url: string;
let snapshots = 0;

beforeAll(async () => {
  // No heartbeat within the test: every look at the store is one a commit caused.
  t = await createTestApp(undefined, { streams: { heartbeatMs: 600_000, watchMs: 50 } });
  const take = t.store.snapshot.bind(t.store);
  t.store.snapshot = () => {
    snapshots++;
    return take();
  };
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await t?.close();
});

const progressAt = (s: OpenStream, block: number) => s.waitFor((e) => e.event === 'progress' && e.data.block_number === block, 20_000);

describe('streams woken by the same commit', { timeout: 60_000 }, () => {
  it('twelve streams following the head take one snapshot between them for a new block, and each is sent it', async () => {
    const head = (await chainMark(t.store, 'ETH')).newest ?? 0;
    const parent = (await canonicalHash(t.store, 'ETH', head)) ?? hashOf(head);
    const streams = await Promise.all(Array.from({ length: 12 }, () => openStream(`${url}${STREAM}&block_start=${head + 1}`, t.key)));
    try {
      expect(streams.every((s) => s.status === 200)).toBe(true);
      // Each stream's first look happens as it connects; let every one of them reach its wait.
      await new Promise((r) => setTimeout(r, 1_500));
      const before = snapshots;
      const block = head + 1;
      await t.store.chain.publish({
        network: 'ETH',
        lo: block,
        hi: block,
        parentHash: parent,
        blocks: [{ number: block, time: '2030-01-01 00:00:00', hash: hashOf(block), parentHash: parent }],
        tables: [],
        covers: ['evm/erc20/transfer'],
        uncovers: [],
      });
      await Promise.all(streams.map((s) => progressAt(s, block)));
      await new Promise((r) => setTimeout(r, 300));
      expect(snapshots - before).toBe(1);
      for (const s of streams) expect(s.events.filter((e) => e.event === 'progress').at(-1)?.id).toBe(streams[0]?.events.at(-1)?.id);
    } finally {
      for (const s of streams) s.close();
    }
  });
});
