/**
 * A client that stops reading a streamed answer is given up after the
 * stalled-reader time: its connection is closed, its export stops (so its
 * lane's slot frees for the next heavy export), and nothing is charged.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { createDemoStoreWithLanes, createMeteredApp, plans, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
let port: number;
const STALL_MS = 1_500;

beforeAll(async () => {
  // One heavy export at a time on DuckDB: a stalled one that kept its slot would stop every other.
  store = await createDemoStoreWithLanes({ light: 4, heavy: 1 });
  m = await createMeteredApp(store, { plans: plans({ open: { requests_per_minute: null, monthly_blocks: null } }), stalledReaderMs: STALL_MS });
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  port = (m.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

/** 3,000 blocks of verbose CSV: far more than the socket buffers hold. */
const LARGE = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23913000&format=csv&verbose=true';

describe('a client that stops reading', () => {
  it('is disconnected after the stalled-reader time, is not charged, and its export frees its slot', async () => {
    const key = await m.newKey('open');
    const socket = net.connect(port, '127.0.0.1');
    socket.write(`GET ${LARGE} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`);
    const head = await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('data', (d: Buffer) => {
        socket.pause();
        resolve(d.toString('latin1'));
      });
    });
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    await new Promise((r) => setTimeout(r, STALL_MS * 3));

    // The next heavy export runs while the stalled client is still connected: the stalled one left its slot.
    const next = await m.get(LARGE, key);
    expect(next.statusCode).toBe(200);
    expect(next.body.split('\n').length).toBeGreaterThan(100);
    // Only the completed answer was charged.
    expect((await m.usage(key)).map((u) => [u.requests, u.blocks])).toEqual([[1, 3_000]]);

    // Read on: what the kernel still held arrives, then the connection ends without the body's last chunk.
    let body = '';
    socket.on('data', (d: Buffer) => {
      body += d.toString('latin1');
    });
    socket.resume();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(body.endsWith('0\r\n\r\n')).toBe(false);
  });

  it('leaves a client that reads in bursts with pauses shorter than the stalled-reader time alone', async () => {
    const key = await m.newKey('open');
    const socket = net.connect(port, '127.0.0.1');
    socket.write(`GET ${LARGE} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`);
    let bytes = 0;
    let burst = 0;
    let tail = '';
    socket.on('data', (d: Buffer) => {
      bytes += d.length;
      burst += d.length;
      tail = (tail + d.toString('latin1')).slice(-16);
      // A megabyte, then half the stalled-reader time of nothing. (Bursts rather than a trickle: on loopback a
      // trickle of reads smaller than two segments of 64 KiB gets no window update, and TCP's own probes stall.)
      if (burst < 1_000_000) return;
      burst = 0;
      socket.pause();
      setTimeout(() => socket.resume(), STALL_MS / 2);
    });
    // Until the body's last chunk, or the connection's end (a cut answer).
    await new Promise<void>((resolve) => {
      socket.on('data', () => {
        if (tail.endsWith('0\r\n\r\n')) resolve();
      });
      socket.once('close', () => resolve());
    });
    socket.destroy();
    expect(bytes).toBeGreaterThan(200_000);
    expect(tail.endsWith('0\r\n\r\n'), 'the body ends with its last chunk').toBe(true);
    expect((await m.usage(key)).map((u) => [u.requests, u.blocks])).toEqual([[1, 3_000]]);
  });
});
