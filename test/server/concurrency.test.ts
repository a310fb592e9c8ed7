/**
 * The plan's `concurrent_requests` through the real server and store: a key
 * with that many responses still streaming gets 429 `rate_limited` with
 * Retry-After, the refusal costs nothing, and a slot frees as soon as one of
 * its responses ends, whether read to the end or abandoned by the client.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { createDemoStoreWithLanes, createMeteredApp, meteringOf, plans, SMALL_QUERY, type MeteredApp } from '../helpers/metered.ts';

let store: Store;
let m: MeteredApp;
let port: number;
beforeAll(async () => {
  // Room for every held download in DuckDB's export lanes: what is tested here is the key's limit, not the lanes'.
  store = await createDemoStoreWithLanes({ light: 16, heavy: 16 });
  m = await createMeteredApp(store, {
    plans: plans({
      two: { requests_per_minute: null, monthly_blocks: null, concurrent_requests: 2 },
      open: { requests_per_minute: null, monthly_blocks: null, concurrent_requests: null },
    }),
  });
  await m.app.listen({ port: 0, host: '127.0.0.1' });
  port = (m.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await m?.close();
  await store?.close();
});

/** 3,000 blocks of verbose CSV: far more than the socket buffers hold, so a client that stops reading keeps it in flight. */
const LARGE = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23913000&format=csv&verbose=true';

/** A download on a raw socket that reads the first bytes and then stops reading: its response stays in flight until `hangUp()`. */
async function heldDownload(key: string): Promise<{ hangUp(): void }> {
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
  return { hangUp: () => socket.destroy() };
}

async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('concurrent requests per key', () => {
  it("answers 429 rate_limited with Retry-After once the plan's in-flight requests are taken, and charges nothing for it", async () => {
    const key = await m.newKey('two');
    const a = await heldDownload(key);
    const b = await heldDownload(key);
    try {
      const refused = await m.get(SMALL_QUERY, key);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(meteringOf(refused)['x-request-cost']).toBe(0);
      expect(refused.json()).toMatchObject({ status: 'error', code: 'rate_limited', concurrent_limit: 2, retry_after: 1 });
      expect(refused.json().error).toMatch(/2 requests of this key are already in flight/);
      // Discovery counts too: the limit is on requests, not on cost.
      expect((await m.get('/v1/protocols', key)).statusCode).toBe(429);
      // Another key is not affected.
      expect((await m.get(SMALL_QUERY, await m.newKey('open'))).statusCode).toBe(200);

      // A client that hangs up frees its slot.
      a.hangUp();
      await eventually(async () => (await m.get(SMALL_QUERY, key)).statusCode === 200);
    } finally {
      a.hangUp();
      b.hangUp();
    }
  });

  it('frees a slot when a response completes, so sequential requests never hit the limit', async () => {
    const key = await m.newKey('two');
    for (let i = 0; i < 6; i++) expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    const all = await Promise.all([m.get(SMALL_QUERY, key), m.get(SMALL_QUERY, key)]);
    expect(all.map((r) => r.statusCode)).toEqual([200, 200]);
  });

  it('does not limit a plan without concurrent_requests', async () => {
    const key = await m.newKey('open');
    const held = await Promise.all([heldDownload(key), heldDownload(key), heldDownload(key)]);
    try {
      expect((await m.get(SMALL_QUERY, key)).statusCode).toBe(200);
    } finally {
      for (const h of held) h.hangUp();
    }
  });
});
