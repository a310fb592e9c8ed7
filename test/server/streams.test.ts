/**
 * Streams and cursor pulls on the demo store, on each engine of the test
 * project (DuckDB, chDB): a stream answers the raw endpoint's rows, and a
 * rollback recorded in the chain log sends a resumed stream `undo` to the
 * common ancestor and answers a pull's stale cursor 409 cursor_reorged.
 * One app serves the whole file (building the demo store dominates its
 * time); the shutdown test closes it, so it runs last.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollbackAbove } from '../../src/ingest/evm/writeBatch.ts';
import { createKey } from '../../src/metering/keys.ts';
import { STEP_BLOCKS } from '../../src/server/streams/streamSession.ts';
import { canonicalHash } from '../../src/store/chainLog.ts';
import { openStream, StreamConsumer } from '../helpers/sse.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
let url: string;
const RAW = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC';
const STREAM = '/v1/evm/erc20/events/transfer/stream?network=ETH&token=USDC';

beforeAll(async () => {
  t = await createTestApp(undefined, { streams: { heartbeatMs: 300 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});

let closed = false;
afterAll(async () => {
  if (!closed) await t?.close();
});

describe('stream charges on the demo store', { timeout: 60_000 }, () => {
  it('a replay of 3,000 blocks (one batch) is charged in steps of at most 1,000 blocks under the stream request id, summing to the raw cost of its blocks', async () => {
    const { key } = await createKey(t.store, { plan: 'unlimited' });
    const s = await openStream(`${url}${STREAM}&block_start=23910000&block_end=23912999`, key);
    expect(s.status).toBe(200);
    await s.ended;
    expect(s.events.at(-1)?.event).toBe('end');
    const rowEvents = s.events.filter((e) => e.event === 'rows');
    expect(rowEvents.length).toBeGreaterThanOrEqual(3);
    expect(rowEvents.every((e) => Number(e.data.to_block) - Number(e.data.from_block) < STEP_BLOCKS)).toBe(true);
    const c = new StreamConsumer();
    c.apply(s.events);
    const raw = await t.get(`${RAW}&block_start=23910000&block_end=23912999`);
    expect(c.rows).toEqual(raw.json<{ events: unknown[] }>().events);

    const usage = (await t.get('/v1/usage?charges=50', { 'x-api-key': key })).json<{ blocks_used: number; last_charges: { request_id: string; endpoint: string; cost: number }[] }>();
    const charges = usage.last_charges;
    expect(charges.length).toBe(3);
    expect(charges.every((ch) => ch.endpoint === '/v1/evm/erc20/events/transfer/stream' && ch.cost <= STEP_BLOCKS)).toBe(true);
    const base = charges[0]?.request_id.replace(/\.\d+$/, '');
    expect(charges.map((ch) => ch.request_id).sort()).toEqual([1, 2, 3].map((n) => `${base}.${n}`));
    expect(charges.reduce((sum, ch) => sum + ch.cost, 0)).toBe(3_000);
    expect(usage.blocks_used).toBe(3_000);
    expect(s.events.filter((e) => e.event === 'progress').at(-1)?.data.cost).toBe(3_000);
  });
});

describe('streams on the demo store', { timeout: 60_000 }, () => {
  it('a stream with an end sends the raw endpoint rows of its blocks, then end, and its last cursor pulls nothing new', async () => {
    const s = await openStream(`${url}${STREAM}&block_start=23910000&block_end=23910100`, t.key);
    expect(s.status).toBe(200);
    await s.ended;
    expect(s.events.at(-1)).toEqual({ event: 'end', id: undefined, data: { block_number: 23910100 } });
    const c = new StreamConsumer();
    c.apply(s.events);
    const raw = await t.get(`${RAW}&block_start=23910000&block_end=23910100`);
    const rows = raw.json<{ events: unknown[] }>().events;
    expect(rows.length).toBeGreaterThan(0);
    expect(c.rows).toEqual(rows);
    const pull = await t.get(`${RAW}&cursor=${c.cursor}&block_end=23910100`);
    expect(pull.statusCode).toBe(200);
    expect(pull.json<{ events: unknown[] }>().events).toEqual([]);
    expect(pull.headers['x-chainq-next-cursor']).toBe(c.cursor);
  });

  it('after a rollback, a pull with a cursor above the ancestor is 409 cursor_reorged, uncharged, and a stream resumed from it starts with undo to the ancestor', async () => {
    const s = await openStream(`${url}${STREAM}&block_start=23910000&block_end=23910100`, t.key);
    await s.ended;
    const c = new StreamConsumer();
    c.apply(s.events);
    const stale = c.cursor!;
    const ancestorHash = await canonicalHash(t.store, 'ETH', 23910050);
    await rollbackAbove(t.store, 'ETH', 23910050);

    const pull = await t.get(`${RAW}&cursor=${stale}`);
    expect(pull.statusCode).toBe(409);
    const body = pull.json<{ code: string; block_number: number; block_hash: string; cursor: string }>();
    expect(body).toMatchObject({ code: 'cursor_reorged', block_number: 23910050, block_hash: ancestorHash });
    expect(pull.headers['x-request-cost']).toBe('0');
    const resumed = await t.get(`${RAW}&cursor=${body.cursor}`);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json<{ events: unknown[] }>().events).toEqual([]);

    const again = await openStream(`${url}${STREAM}&block_start=23910000`, t.key, stale);
    try {
      const undo = await again.waitFor((e) => e.event === 'undo');
      expect(undo.data).toEqual({ block_number: 23910050, block_hash: ancestorHash });
      expect(undo.id).toBe(body.cursor);
      c.reconnected();
      c.apply(again.events);
      expect(c.rows.length).toBeGreaterThan(0);
      expect(c.rows.every((r) => r.block_number <= 23910050)).toBe(true);
    } finally {
      again.close();
      await again.ended;
    }
  });
});

describe('shutdown', { timeout: 30_000 }, () => {
  it('ends an open stream that follows the head cleanly when the server closes, its last cursor in hand', async () => {
    const s = await openStream(`${url}${STREAM}&block_start=23910000`, t.key);
    await s.waitFor((e) => e.event === 'progress' && Number(e.data.block_number) > 23910000);
    const t0 = Date.now();
    closed = true;
    await t.close();
    await s.ended;
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(s.events.some((e) => e.event === 'error')).toBe(false);
    expect(s.events.at(-1)?.id).toBeTruthy();
  });
});
