/**
 * Streams of the Tron and Bitcoin raw endpoints on the demo store, and
 * `finality=final` holding back the blocks within a network's finality
 * depth, on each engine of the test project (DuckDB, chDB).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalityDepth } from '../../src/catalog/networks.ts';
import { BTC_DEMO_START_BLOCK } from '../../src/demo/btc.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { chainMark } from '../../src/store/chainLog.ts';
import { openStream, type SseEvent, StreamConsumer } from '../helpers/sse.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
let url: string;
const TRON_FIRST = DEMO_START_BLOCKS.TRON ?? 0;

beforeAll(async () => {
  t = await createTestApp(undefined, { streams: { heartbeatMs: 300 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the test server listens on no TCP port');
  url = `http://127.0.0.1:${(address satisfies AddressInfo).port}`;
});

afterAll(async () => {
  await t?.close();
});

/** The rows a stream over [start, end] delivers, after it ends on its own. */
async function streamedRows(path: string, start: number, end: number): Promise<{ rows: unknown[]; last: SseEvent | undefined }> {
  const s = await openStream(`${url}${path}/stream?${path.includes('trc20') ? 'token=USDT&' : ''}block_start=${start}&block_end=${end}`, t.key);
  expect(s.status, JSON.stringify(s.error)).toBe(200);
  await s.ended;
  const c = new StreamConsumer();
  c.apply(s.events);
  return { rows: c.rows, last: s.events.at(-1) };
}

async function rawRows(path: string, start: number, end: number): Promise<unknown[]> {
  const r = await t.get(`${path}?${path.includes('trc20') ? 'token=USDT&' : ''}block_start=${start}&block_end=${end}`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json<{ events: unknown[] }>().events;
}

describe('streams of non-EVM raw endpoints', { timeout: 60_000 }, () => {
  for (const [name, path, start, end] of [
    ['Tron TRC-20', '/v1/tron/trc20/events/transfer', TRON_FIRST, TRON_FIRST + 200],
    ['Tron TRX', '/v1/tron/native/events/transfer', TRON_FIRST, TRON_FIRST + 200],
    ['Bitcoin', '/v1/btc/native/events/transfer', BTC_DEMO_START_BLOCK, BTC_DEMO_START_BLOCK + 40],
  ] as const) {
    it(`a bounded ${name} stream sends the raw endpoint's JSON rows of its blocks, then end`, async () => {
      const { rows, last } = await streamedRows(path, start, end);
      const raw = await rawRows(path, start, end);
      expect(raw.length).toBeGreaterThan(0);
      expect(rows).toEqual(raw);
      expect(last).toEqual({ event: 'end', id: undefined, data: { block_number: end } });
    });
  }
});

describe('finality=final', { timeout: 60_000 }, () => {
  for (const [network, path] of [
    ['BTC', '/v1/btc/native/events/transfer'],
    ['TRON', '/v1/tron/native/events/transfer'],
  ] as const) {
    it(`on ${network}, a range up to the newest block delivers only the blocks at least the finality depth behind it, and waits instead of ending`, async () => {
      const newest = (await chainMark(t.store, network)).newest;
      if (newest === null) throw new Error(`the demo store has no ${network} chain log`);
      const depth = finalityDepth(network);
      const finalTop = newest - depth;
      const start = newest - depth - 30;

      // The same range at finality=latest reaches the newest block and ends.
      const latest = await streamedRows(path, start, newest);
      expect(latest.last?.event).toBe('end');

      const s = await openStream(`${url}${path}/stream?block_start=${start}&block_end=${newest}&finality=final`, t.key);
      expect(s.status, JSON.stringify(s.error)).toBe(200);
      try {
        await s.waitFor((e) => e.event === 'progress' && Number(e.data.block_number) === finalTop);
        // One heartbeat later it still holds there: nothing past the depth, no end.
        const seen = s.events.length;
        await s.waitFor((e) => e.event === 'progress' && s.events.indexOf(e) >= seen);
        const c = new StreamConsumer();
        c.apply(s.events);
        expect(s.events.some((e) => e.event === 'end' || e.event === 'error')).toBe(false);
        expect(s.events.filter((e) => e.event === 'progress').every((e) => Number(e.data.block_number) <= finalTop)).toBe(true);
        expect(c.rows).toEqual(await rawRows(path, start, finalTop));
        expect(latest.rows.length).toBeGreaterThan(c.rows.length);
      } finally {
        s.close();
        await s.ended;
      }
    });
  }
});
