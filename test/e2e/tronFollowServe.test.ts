/**
 * A Tron follow job inside a running `chainq serve`, against the fake Tron
 * full node: the chain skeleton reports its head at the start and after each
 * follow round, so /metrics shows the head, the newest committed block and
 * the lag for TRON as it does for EVM networks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';
import { operatorMetrics, sample } from '../helpers/operatorMetrics.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { TronChain, tronHandlers } from '../ingest/fixtures/tron.ts';

const FIRST = 78_450_000;
const CONFIRMATIONS = 10;

let node: SourceServer;
let chain: TronChain;
let dir: string;
let server: Server;

beforeAll(async () => {
  node = await startSourceServer();
  chain = new TronChain(FIRST, Date.UTC(2025, 11, 1));
  chain.grow(60, 3);
  for (const [p, h] of tronHandlers(chain)) node.handlers.set(p, h);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-tron-follow-'));
  server = await startServer(dir);
});

afterAll(async () => {
  await server?.stop();
  await node?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Polls /metrics until TRON's head and newest block are these. */
async function untilTronAt(head: number, newest: number): Promise<string> {
  const t0 = Date.now();
  for (;;) {
    const text = await operatorMetrics(dir);
    if (sample(text, 'chainq_ingest_head_block', { network: 'TRON' }) === head && sample(text, 'chainq_ingest_newest_block', { network: 'TRON' }) === newest) return text;
    const tron = text.split('\n').filter((l) => l.includes('TRON'));
    expect(Date.now() - t0, `TRON head ${head} / newest ${newest} not in /metrics:\n${tron.join('\n')}`).toBeLessThan(30_000);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a Tron follow job in a running server', { timeout: 120_000 }, () => {
  it('shows the Tron head, the newest committed block and the lag in /metrics, and moves them with the head', async () => {
    const args = ['--from', String(FIRST), '--follow', '--confirmations', String(CONFIRMATIONS), '--datasets', 'native', '--batch', '20', '--poll', '0.1'];
    const follower = spawnCli(['ingest', 'tron', '--api', node.url, ...args, '--data', dir, '--quiet']);
    try {
      let text = await untilTronAt(chain.head, chain.head - CONFIRMATIONS);
      expect(sample(text, 'chainq_ingest_lag_blocks', { network: 'TRON' })).toBe(CONFIRMATIONS);
      chain.grow(25, 4);
      text = await untilTronAt(chain.head, chain.head - CONFIRMATIONS);
      expect(sample(text, 'chainq_ingest_lag_blocks', { network: 'TRON' })).toBe(CONFIRMATIONS);
    } finally {
      follower.child.kill('SIGINT');
    }
    const r = await follower.done;
    expect(r.code, r.stderr).toBe(130);
  });
});
