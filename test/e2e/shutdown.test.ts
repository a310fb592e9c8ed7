/**
 * Black-box: `chainq serve` on SIGTERM stops taking connections at once, lets
 * a download in flight finish whole, and exits 0; with a short grace period
 * it cuts off a client that does not read, and still exits 0. Also: /metrics
 * is on the operator's metrics port and socket, never on the API port unless asked.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { startServer, writeDemoStore, type Server } from '../helpers/server.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-shutdown-'));
const ETH0 = DEMO_START_BLOCKS.ETH!;
/**
 * A quarter day of demo ERC-20 at twice the usual rate holds blocks ETH0 …
 * ETH0+1799: about 10 MB of verbose JSON for USDT. Well over what the kernel
 * buffers on a loopback connection (about 4 MB here), so with a slow client
 * most of the body is still in the server when the signal comes.
 */
const DOWNLOAD = `/v1/evm/erc20/events/transfer?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 1799}&format=json&verbose=true`;

beforeAll(async () => {
  await writeDemoStore(dataDir, { days: 0.25, scale: 2, only: ['evm/erc20'] });
});

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface SlowDownload {
  /** Resolves once `bytes` have arrived. */
  received(bytes: number): Promise<void>;
  /** The whole body, or a rejection if the connection broke off first. */
  readonly body: Promise<Buffer>;
  readonly socketClosed: Promise<void>;
}

/** A client that reads `chunkBytes` every `everyMs`, so the server has to wait on it. */
function slowDownload(server: Server, pathAndQuery: string, chunkBytes: number, everyMs: number): SlowDownload {
  const chunks: Buffer[] = [];
  let total = 0;
  const waiters: { bytes: number; resolve: () => void }[] = [];
  let socketClosed!: () => void;
  const closed = new Promise<void>((r) => {
    socketClosed = r;
  });
  const body = new Promise<Buffer>((resolve, reject) => {
    const req = http.get(`${server.url}${pathAndQuery}`, { headers: { 'x-api-key': server.key } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.on('readable', function pump() {
        let taken = 0;
        while (taken < chunkBytes) {
          const chunk = res.read() as Buffer | null;
          if (chunk === null) break;
          chunks.push(chunk);
          taken += chunk.length;
          total += chunk.length;
        }
        for (const w of [...waiters])
          if (total >= w.bytes) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        if (taken >= chunkBytes) {
          res.off('readable', pump);
          setTimeout(() => {
            res.on('readable', pump);
            pump();
          }, everyMs);
        }
      });
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('aborted', () => reject(new Error(`connection broke off after ${total} bytes`)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('socket', (s) => s.once('close', () => socketClosed()));
  });
  body.catch(() => undefined);
  return {
    received: (bytes) =>
      total >= bytes
        ? Promise.resolve()
        : new Promise((resolve) => {
            waiters.push({ bytes, resolve });
          }),
    body,
    socketClosed: closed,
  };
}

/**
 * A client on a raw socket that reads the response's first bytes and then
 * stops reading (the socket is paused, so nothing more leaves the kernel's
 * buffers). `closed` resolves when the server ends the connection.
 */
function stuckDownload(server: Server, pathAndQuery: string) {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  let received = 0;
  const firstBytes = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', (d: Buffer) => {
      received += d.length;
      socket.pause();
      resolve();
    });
  });
  socket.write(`GET ${pathAndQuery} HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${server.key}\r\n\r\n`);
  // The socket is paused: the peer's close shows only once what is buffered is read.
  const closed = firstBytes.then(
    () =>
      new Promise<void>((resolve) => {
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
        socket.on('end', () => resolve());
        const drain = () => {
          socket.resume();
        };
        setTimeout(drain, 3_000);
        socket.on('data', (d: Buffer) => {
          received += d.length;
        });
      }),
  );
  return { firstBytes, closed, total: async () => received };
}

/** Whether a new TCP connection to `url` is accepted. */
function connects(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(port), hostname);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The process's exit, or a failure (and SIGKILL) if it has not exited within `ms`: a hung shutdown must fail, not stall the suite. */
async function exited(server: Server, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      server.cli.child.kill('SIGKILL');
      reject(new Error(`chainq serve did not exit within ${ms} ms of SIGTERM`));
    }, ms);
  });
  try {
    return await Promise.race([server.cli.done, late]);
  } finally {
    clearTimeout(timer);
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('chainq serve on SIGTERM', () => {
  it('lets a slow download in flight finish whole, refuses new connections, and exits 0', async () => {
    const server = await startServer(dataDir, ['--log-level', 'info', '--metrics-port', '0']);
    try {
      const whole = await fetch(`${server.url}${DOWNLOAD}`, { headers: { 'x-api-key': server.key } });
      expect(whole.status).toBe(200);
      const expected = Buffer.from(await whole.arrayBuffer());
      expect(expected.length).toBeGreaterThan(8_000_000);

      // The operator's listener has the metrics; the public one does not.
      const metricsUrl = /metrics on (http:\/\/\S+)/.exec(server.stdout())![1]!;
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/chainq_http_requests_total\{method="GET",route="\/v1\/evm\/erc20\/events\/transfer",status="200"\} 1/);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      const viaSocket = await new Promise<string>((resolve, reject) => {
        http
          .get({ socketPath: path.join(dataDir, 'chainq.sock'), path: '/metrics' }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => {
              text += d.toString();
            });
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(viaSocket).toContain('# TYPE chainq_http_requests_total counter');

      // About 3 MB/s: the server waits on this client for a few seconds.
      const download = slowDownload(server, DOWNLOAD, 64 * 1024, 20);
      await download.received(256 * 1024);
      server.cli.child.kill('SIGTERM');
      await server.cli.waitFor((l) => l.msg === 'no longer accepting connections; waiting for in-flight responses');

      expect(await connects(server.url)).toBe(false);
      const got = await download.body;
      expect(got.length).toBe(expected.length);
      expect(sha256(got)).toBe(sha256(expected));

      const exit = await exited(server, 30_000);
      expect(exit.code).toBe(0);
      // The download really was in flight: it completed after the shutdown began, without forcing.
      const shutdownAt = exit.logs.findIndex((l) => l.msg?.toString().startsWith('shutting down'));
      const completedAt = exit.logs.findLastIndex((l) => l.msg === 'request completed');
      expect(completedAt).toBeGreaterThan(shutdownAt);
      expect(exit.logs.find((l) => l.msg === 'stopped')).toMatchObject({ forced: false });
      expect(exit.logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
    } finally {
      if (server.cli.child.exitCode === null) server.cli.child.kill('SIGKILL');
      await server.cli.done;
    }
  });

  it('closes a connection still open when the grace period ends, and exits 0', async () => {
    const server = await startServer(dataDir, ['--log-level', 'info', '--grace-period', '1']);
    try {
      // A raw TCP client that reads the first bytes and then nothing at all: the
      // kernel's buffers fill and the server's export waits on it for good.
      const stuck = stuckDownload(server, DOWNLOAD);
      await stuck.firstBytes;
      server.cli.child.kill('SIGTERM');
      await stuck.closed;
      const exit = await exited(server, 15_000);
      expect(exit.code).toBe(0);
      expect(exit.logs.find((l) => l.msg === 'grace period over')).toBeDefined();
      expect(exit.logs.find((l) => l.msg === 'stopped')).toMatchObject({ forced: true });
      // The client got less than the whole body: it was cut off, not served.
      expect(await stuck.total()).toBeLessThan(8_000_000);
    } finally {
      if (server.cli.child.exitCode === null) server.cli.child.kill('SIGKILL');
      await server.cli.done;
    }
  });
});
