/**
 * Live streams against the real server, a real anvil node and DuckDB: a
 * follower ingests the chain inside the server with 0 confirmations while
 * many stream clients read it, disconnect at random and resume from their
 * last cursor, through reorgs of depth 1 to 3 and a kill -9 of the server.
 * At the end every client's rows, after applying every undo, are the node's
 * canonical logs, none twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/query/cursor.ts';
import type { Anvil } from '../helpers/anvil.ts';
import type { Chain } from '../helpers/chain.ts';
import { runCli, type RunningCli } from '../helpers/cli.ts';
import { followInServer } from '../helpers/ingestEvm.ts';
import { writePlansFile } from '../helpers/metered.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { openStream, StreamConsumer, type OpenStream } from '../helpers/sse.ts';
import { startTokenChain } from '../helpers/tokenChain.ts';

let anvil: Anvil;
let chain: Chain;
let token: Hex;
let alice: Hex;
let bob: Hex;
let carol: Hex;
let dir: string;
let server: Server;
let follower: RunningCli | undefined;
let amount = 0n;

const SERVE_ARGS = ['--stream-heartbeat', '0.5'];

async function startFollower(): Promise<void> {
  follower = await followInServer(anvil.url, dir, { batchBlocks: 5 });
}

async function stopFollower(): Promise<void> {
  if (!follower) return;
  if (follower.child.exitCode === null) follower.child.kill('SIGINT');
  await follower.done;
  follower = undefined;
}

const streamPath = (query: string) => `/v1/evm/erc20/events/transfer/stream?network=ETH&token=${token}&${query}`;

/** One transfer in a block of its own, with an amount no other transfer has. */
async function transfer(to: Hex): Promise<void> {
  amount++;
  await chain.send('TestToken', token, 'transfer', [to, amount], { from: alice });
}

/** Each transfer sits in a block of its own: a row twice repeats its block, a row of a replaced block has the other receiver. */
interface Truth {
  readonly block_number: number;
  readonly receiver: string;
}

async function nodeTransfers(): Promise<{ tip: number; rows: Truth[] }> {
  const tip = await chain.blockNumber();
  const logs = await chain.rpc<{ blockNumber: Hex; topics: Hex[] }[]>('eth_getLogs', [{ address: token, fromBlock: '0x1', toBlock: `0x${tip.toString(16)}` }]);
  return { tip, rows: logs.map((l) => ({ block_number: Number(BigInt(l.blockNumber)), receiver: `0x${l.topics[2]!.slice(26)}` })) };
}

const held = (c: StreamConsumer): Truth[] => c.rows.map((r) => ({ block_number: r.block_number, receiver: String(r.receiver) }));

/** A client that reconnects with its last cursor whenever it is dropped (by itself at random, or by the server). */
class Client {
  readonly consumer = new StreamConsumer();
  stream: OpenStream | null = null;
  running = true;
  reconnects = 0;
  readonly loop: Promise<void>;

  constructor(readonly start: string) {
    this.loop = this.run();
  }

  async run(): Promise<void> {
    while (this.running) {
      let s: OpenStream;
      try {
        s = await openStream(`${server.url}${streamPath(this.start)}`, server.key, this.consumer.cursor);
      } catch {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (s.status !== 200) throw new Error(`stream refused: ${JSON.stringify(s.error)}`);
      this.stream = s;
      this.consumer.reconnected();
      const drop = setTimeout(() => s.close(), 300 + Math.random() * 2_500);
      const apply = setInterval(() => this.consumer.apply(s.events), 20);
      await s.ended;
      clearTimeout(drop);
      clearInterval(apply);
      this.consumer.apply(s.events);
      this.reconnects++;
    }
  }

  /** Resolves once the client holds everything up to `block`. */
  async reached(block: number, timeoutMs = 20_000): Promise<void> {
    const t0 = Date.now();
    while (!this.consumer.cursor || Number(JSON.parse(Buffer.from(this.consumer.cursor, 'base64url').toString()).b) < block) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`client from ${this.start} did not reach block ${block}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stream?.close();
    await this.loop;
  }
}

beforeAll(async () => {
  ({ anvil, chain, token, alice, bob, carol } = await startTokenChain());
  for (let i = 0; i < 10; i++) await transfer(bob);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-streams-'));
  writePlansFile(dir, { budget: { requests_per_minute: null, monthly_blocks: 130, concurrent_streams: 1 } });
  server = await startServer(dir, SERVE_ARGS);
  await startFollower();
});

afterAll(async () => {
  await stopFollower().catch(() => undefined);
  await server?.stop();
  await anvil?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('live streams', { timeout: 120_000 }, () => {
  it('50 clients, most starting in history, that drop and resume through reorgs of depth 1 to 3 and a kill -9 of the server each end with exactly the node canonical transfers', async () => {
    // 50 clients: most replay history first (from block 1 or a later block), every fifth starts at the head and only follows.
    const head = await chain.blockNumber();
    const startOf = (i: number) => (i % 5 === 4 ? head : i % 3 === 0 ? 1 : 1 + (i % 12));
    const clients = Array.from({ length: 50 }, (_, i) => new Client(`block_start=${startOf(i)}`));
    try {
      for (const depth of [1, 2, 3]) {
        for (let i = 0; i < 3; i++) await transfer(bob);
        // A fork: `depth` blocks paying bob, delivered, then replaced by depth + 1 blocks paying carol.
        const snapshot = await chain.rpc<Hex>('evm_snapshot');
        for (let i = 0; i < depth; i++) await transfer(bob);
        const tipA = await chain.blockNumber();
        await Promise.all(clients.slice(0, 5).map((c) => c.reached(tipA)));
        expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
        for (let i = 0; i <= depth; i++) await transfer(carol);
      }
      // kill -9 mid-flight: clients lose the server, then resume on the restarted one.
      server.child.kill('SIGKILL');
      await server.cli.done;
      await follower?.done;
      follower = undefined;
      for (let i = 0; i < 3; i++) await transfer(bob);
      server = await startServer(dir, SERVE_ARGS, server.key);
      await startFollower();
      for (let i = 0; i < 3; i++) await transfer(carol);

      const truth = await nodeTransfers();
      await Promise.all(clients.map((c) => c.reached(truth.tip, 30_000)));
      for (const c of clients) {
        const startBlock = Number(/block_start=(\d+)/.exec(c.start)![1]);
        expect(held(c.consumer)).toEqual(truth.rows.filter((r) => r.block_number >= startBlock));
      }
      expect(clients.reduce((n, c) => n + c.consumer.undos, 0)).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((c) => c.stop()));
    }
  });

  it('a quiet filter still gets a progress event at the heartbeat interval, its cursor moving with the chain', async () => {
    const s = await openStream(`${server.url}${streamPath('receiver=0x000000000000000000000000000000000000dead&block_start=1')}`, server.key);
    try {
      const first = await s.waitFor((e) => e.event === 'progress');
      await chain.rpc('anvil_mine', ['0x2']);
      const tip = await chain.blockNumber();
      const moved = await s.waitFor((e) => e.event === 'progress' && Number(e.data.block_number) >= tip);
      expect(moved.id).not.toBe(first.id);
      const t0 = Date.now();
      const n = s.events.length;
      await s.waitFor((e) => e.event === 'progress' && s.events.indexOf(e) >= n);
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(s.events.filter((e) => e.event === 'rows')).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('a stream with an end delivers up to it, says end, and closes', async () => {
    const s = await openStream(`${server.url}${streamPath('block_start=1&block_end=6')}`, server.key);
    await s.ended;
    const last = s.events.at(-1);
    expect(last?.event).toBe('end');
    expect(last?.data).toEqual({ block_number: 6 });
    const c = new StreamConsumer();
    c.apply(s.events);
    const truth = await nodeTransfers();
    expect(held(c)).toEqual(truth.rows.filter((r) => r.block_number <= 6));
  });

  it('refuses a malformed cursor, or one of another endpoint or network, with 400 invalid_cursor before any event', async () => {
    const bad = [
      'not a cursor!',
      Buffer.from('{"v":1}').toString('base64url'),
      encodeCursor({ endpoint: 'evm/native/transfer', network: 'ETH', block: 3, hash: null }),
      encodeCursor({ endpoint: 'evm/erc20/transfer', network: 'OP', block: 3, hash: null }),
    ];
    for (const cursor of bad) {
      const s = await openStream(`${server.url}${streamPath(`cursor=${encodeURIComponent(cursor)}`)}`, server.key);
      expect(s.status, cursor).toBe(400);
      expect(s.error?.code).toBe('invalid_cursor');
    }
    const made = await openStream(`${server.url}${streamPath(`cursor=${encodeCursor({ endpoint: 'evm/erc20/transfer', network: 'ETH', block: 3, hash: '0xdead' })}`)}`, server.key);
    expect(made.status).toBe(400);
    expect(made.error?.code).toBe('invalid_cursor');
  });
});

async function newKey(plan: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--plan', plan, '--data', dir]);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim().split('\n').pop()!.trim();
}

describe('stream charges', { timeout: 60_000 }, () => {
  it('charges a stream in steps as raw JSON over the blocks it delivered, shows them in /v1/usage, and ends it with quota_exceeded when the budget runs out', async () => {
    const key = await newKey('budget');
    const s = await openStream(`${server.url}${streamPath('block_start=1')}`, key);
    expect(s.status).toBe(200);
    // Never a second stream at once on this plan.
    const second = await openStream(`${server.url}${streamPath('block_start=1')}`, key);
    expect(second.status).toBe(429);
    expect(second.error?.code).toBe('rate_limited');
    const first = await s.waitFor((e) => e.event === 'progress' && Number(e.data.cost) > 0);
    // The 100-block minimum, once.
    expect(first.data.cost).toBe(100);
    // Ten blocks at a time, each delivered before the next, until the budget is spent.
    while (!s.events.some((e) => e.event === 'error')) {
      await chain.rpc('anvil_mine', ['0xa']);
      const tip = await chain.blockNumber();
      await s.waitFor((e) => e.event === 'error' || (e.event === 'progress' && Number(e.data.block_number) >= tip));
    }
    const error = await s.waitFor((e) => e.event === 'error');
    expect(error.data.code).toBe('quota_exceeded');
    await s.ended;
    const progress = s.events.filter((e) => e.event === 'progress').map((e) => Number(e.data.cost));
    const charged = Math.max(...progress);
    expect(charged).toBeGreaterThan(100);
    expect(charged).toBeLessThanOrEqual(130);
    const res = await fetch(`${server.url}/v1/usage?charges=50`, { headers: { 'x-api-key': key } });
    const usage = (await res.json()) as {
      blocks_used: number;
      last_charges: { endpoint: string; cost: number }[];
    };
    expect(res.status, JSON.stringify(usage)).toBe(200);
    expect(usage.blocks_used).toBe(charged);
    expect(usage.last_charges.every((c) => c.endpoint === '/v1/evm/erc20/events/transfer/stream')).toBe(true);
    expect(usage.last_charges.length).toBeGreaterThan(1);
  });

  it('ends a stream with cost_over_limit before the batch that would pass its max_cost', async () => {
    const tip = await chain.blockNumber();
    const s = await openStream(`${server.url}${streamPath(`block_start=${tip - 49}&max_cost=120`)}`, server.key);
    await s.waitFor((e) => e.event === 'progress' && Number(e.data.cost) === 100);
    while (!s.events.some((e) => e.event === 'error')) {
      await chain.rpc('anvil_mine', ['0xa']);
      const next = await chain.blockNumber();
      await s.waitFor((e) => e.event === 'error' || (e.event === 'progress' && Number(e.data.block_number) >= next));
    }
    const error = await s.waitFor((e) => e.event === 'error');
    expect(error.data.code).toBe('cost_over_limit');
    const costs = s.events.filter((e) => e.event === 'progress').map((e) => Number(e.data.cost));
    expect(Math.max(...costs)).toBeGreaterThan(100);
    expect(Math.max(...costs)).toBeLessThanOrEqual(120);
  });
});

describe('cursor pulls', { timeout: 60_000 }, () => {
  const pullPath = (cursor: string) => `/v1/evm/erc20/events/transfer?network=ETH&token=${token}&cursor=${cursor}`;
  const blockOf = (cursor: string) => Number(JSON.parse(Buffer.from(cursor, 'base64url').toString()).b);

  it('a loader pulling with cursor= gets 409 cursor_reorged, uncharged, after a reorg, continues from its cursor and ends equal to the node', async () => {
    const s = await openStream(`${server.url}${streamPath('block_start=1')}`, server.key);
    const first = await s.waitFor((e) => e.event === 'progress');
    s.close();
    let cursor = first.id!;
    let rows: Truth[] = [];
    let reorged = 0;
    const pullTo = async (tip: number) => {
      const t0 = Date.now();
      while (blockOf(cursor) < tip) {
        expect(Date.now() - t0, `pulls did not reach ${tip}`).toBeLessThan(20_000);
        const res = await fetch(`${server.url}${pullPath(cursor)}`, { headers: { 'x-api-key': server.key } });
        const body = (await res.json()) as { events?: { block_number: number; receiver: string }[]; code?: string; block_number?: number; cursor?: string };
        if (res.status === 409) {
          expect(body.code).toBe('cursor_reorged');
          expect(res.headers.get('x-request-cost')).toBe('0');
          rows = rows.filter((r) => r.block_number <= body.block_number!);
          cursor = body.cursor!;
          reorged++;
          continue;
        }
        expect(res.status, JSON.stringify(body)).toBe(200);
        rows.push(...body.events!.map((r) => ({ block_number: r.block_number, receiver: r.receiver })));
        const next = res.headers.get('x-chainq-next-cursor');
        expect(next).toBeTruthy();
        if (next === cursor) await new Promise((r) => setTimeout(r, 100));
        cursor = next!;
      }
    };
    await transfer(bob);
    await pullTo(await chain.blockNumber());
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    for (let i = 0; i < 2; i++) await transfer(bob);
    await pullTo(await chain.blockNumber());
    await chain.rpc('evm_revert', [snapshot]);
    for (let i = 0; i < 3; i++) await transfer(carol);
    await pullTo(await chain.blockNumber());
    expect(reorged).toBe(1);
    const truth = await nodeTransfers();
    expect(rows).toEqual(truth.rows);
  });
});
