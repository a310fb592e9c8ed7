/**
 * Black-box: the `chainq` command as a newcomer uses it. A new data directory
 * gets the demo and a first key; the key answers over a real port; a client
 * leaving mid-stream does not hurt the server; status reports what is held.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/chainq.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-e2e-'));

let server: ChildProcess;
let base: string;
let firstKey: string;
let stdout = '';
let stderr = '';

beforeAll(async () => {
  server = spawn(process.execPath, [bin, 'serve', '--data', dataDir, '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(d);
  });
  base = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stdout}`)));
  });
  firstKey = /\n(cq_[0-9A-Za-z]{32})\n/.exec(stdout)![1]!;
  // The whole default demo is built before the server listens; on a 2-core machine running other test files it can take minutes.
}, 360_000);

afterAll(async () => {
  if (server.exitCode === null) {
    await new Promise((r) => {
      server.once('exit', r);
      server.kill('SIGTERM');
    });
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (url: string, key = firstKey) => fetch(`${base}${url}`, { headers: { 'x-api-key': key } });
const ETH0 = DEMO_START_BLOCKS.ETH!;

describe('chainq serve on a new data directory', () => {
  it('loads the demo, prints a first key, and listens on 127.0.0.1', () => {
    expect(stdout).toMatch(/loading the demo dataset/);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('starts without a warning from Node or a library (a newcomer reads every line it prints)', () => {
    expect(stderr).not.toMatch(/warning|deprecat/i);
  });

  it('answers the README query in CSV with the printed key', async () => {
    const res = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 100}&format=csv`);
    expect(res.status).toBe(200);
    const lines = (await res.text()).trim().split('\n');
    expect(lines[0]).toBe('block_number,token,sender,receiver,amount,time');
    expect(lines.length).toBeGreaterThan(100);
  });

  it('a server that cannot start (its port taken) says why and exits 1, leaving nothing running', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-e2e-taken-'));
    try {
      const port = new URL(base).port;
      const failed = await run(process.execPath, [bin, 'serve', '--data', other, '--port', port, '--no-demo', '--log-level', 'warn'], { timeout: 60_000 }).then(
        () => null,
        (e: { code?: number; killed?: boolean; stderr?: string }) => e,
      );
      expect(failed?.killed).toBe(false);
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain('EADDRINUSE');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('keeps serving after a client leaves in the middle of a large response', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/v1/evm/erc20/events/transfer?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 10_000}&format=json`, { headers: { 'x-api-key': firstKey } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
    });
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const again = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 10}`);
    expect(again.status).toBe(200);
    expect(server.exitCode).toBeNull();
  });
});

describe('chainq commands on a stopped store', () => {
  beforeAll(async () => {
    await new Promise((r) => {
      server.once('exit', r);
      server.kill('SIGTERM');
    });
  });

  it('creates a key and prints it alone on the last line', async () => {
    const { stdout: out } = await run(process.execPath, [bin, 'keys', 'create', '--data', dataDir, '--plan', 'pro']);
    expect(out.trim().split('\n').pop()).toMatch(/^cq_[0-9A-Za-z]{32}$/);
  });

  it('prints what the store holds as JSON, one entry per dataset and network', async () => {
    const { stdout: out } = await run(process.execPath, [bin, 'status', '--data', dataDir, '--json']);
    const status = JSON.parse(out) as { datasets: { dataset: string; network: string | null; rows: number; block_min: number; block_max: number; time_min: string; time_max: string }[] };
    const eth = status.datasets.find((d) => d.dataset === 'evm/erc20/transfer' && d.network === 'ETH')!;
    expect(eth.rows).toBeGreaterThan(0);
    expect(eth.block_min).toBe(ETH0);
    expect(eth.time_min).toBe('2025-12-01T00:00:00Z');
    for (const d of status.datasets) expect(d.dataset).toMatch(/^(evm\/[a-z0-9_]+\/[a-z0-9_]+|tron\/(trc20|native)\/transfer|btc\/native\/transfer|exchange\/venue_[ab]\/[a-z_]+)$/);
  });

  it('sends a command to the server when one holds the store, with the same output', async () => {
    const stopped = await run(process.execPath, [bin, 'keys', 'list', '--data', dataDir, '--json']);
    const holder = spawn(process.execPath, [bin, 'serve', '--data', dataDir, '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) =>
      holder.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('listening')) resolve();
      }),
    );
    try {
      const live = await run(process.execPath, [bin, 'keys', 'list', '--data', dataDir, '--json']);
      expect(live.stdout).toBe(stopped.stdout);
    } finally {
      await new Promise((r) => {
        holder.once('exit', r);
        holder.kill('SIGTERM');
      });
    }
  });
});
