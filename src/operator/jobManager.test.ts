/** Supervised jobs: a failing job is retried with backoff, its error is visible, and it stops when asked. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../store/openStore.ts';
import type { Store } from '../store/types.ts';
import { createJobManager, type JobStatus } from './jobManager.ts';

let store: Store;
/** A node that serves chain 5 (Goerli): an ETH job fails at once on its chain check. */
let node: http.Server;
let rpc: string;
beforeAll(async () => {
  store = await createStore({ dataDir: null, threads: 1 });
  node = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const calls = JSON.parse(body) as { id: number } | { id: number }[];
      const answer = (c: { id: number }) => ({ jsonrpc: '2.0', id: c.id, result: '0x5' });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  rpc = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await store?.close();
  await new Promise((r) => node?.close(r));
});

describe('job manager', () => {
  it('retries a failing supervised job with growing delays and shows its last error', async () => {
    const states: JobStatus[] = [];
    const jobs = createJobManager({ store, dataDir: null, retryBaseMs: 20, retryMaxMs: 200, observe: { state: (s) => states.push(s) } });
    const job = jobs.start({ source: 'evm', network: 'ETH', rpc }, { name: 'eth', supervised: true });
    while (job.status().attempts < 4) await new Promise((r) => setTimeout(r, 10));
    const s = job.status();
    expect(s.lastError?.message).toMatch(/serves chain 5, but ETH is chain 1/);
    expect(s.name).toBe('eth');
    expect(states.map((x) => x.state)).toContain('retrying');
    await job.stop();
    expect(job.status().state).toBe('stopped');
    expect(jobs.list()).toEqual([expect.objectContaining({ id: job.id, state: 'stopped' })]);
  });

  it('ends an unsupervised job as failed with its message, and refuses a second job on the same scope', async () => {
    const jobs = createJobManager({ store, dataDir: null });
    const messages: string[] = [];
    const job = jobs.start({ source: 'evm', network: 'ETH', rpc, follow: true });
    job.subscribe((m) => messages.push(m.type));
    expect(() => jobs.start({ source: 'evm', network: 'ETH', rpc: 'http://127.0.0.1:10' })).toThrow(/already running/);
    await job.ended;
    expect(job.status().state).toBe('failed');
    expect(messages.at(-1)).toBe('failed');
    // Ended, the scope is free again.
    const again = jobs.start({ source: 'evm', network: 'ETH', rpc });
    await again.ended;
  });
});
