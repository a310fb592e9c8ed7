/**
 * Live streams on ClickHouse (chDB in process): `chainq serve --store chdb:DIR`
 * follows a real anvil node with 0 confirmations (the ingest command hands its
 * job to the server, which holds the embedded store) while stream clients,
 * some replaying history and one only following, drop at random and resume
 * from their last cursor through a reorg of depth 2. Each ends with the
 * node's canonical `eth_getLogs` transfers, none twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Anvil } from '../helpers/anvil.ts';
import type { Chain } from '../helpers/chain.ts';
import type { RunningCli } from '../helpers/cli.ts';
import { followInServer } from '../helpers/ingestEvm.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { openStream, StreamConsumer } from '../helpers/sse.ts';
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
const storeBefore = process.env.CHAINQ_STORE;

async function transfer(to: Hex): Promise<void> {
  amount++;
  await chain.send('TestToken', token, 'transfer', [to, amount], { from: alice });
}

beforeAll(async () => {
  ({ anvil, chain, token, alice, bob, carol } = await startTokenChain());
  for (let i = 0; i < 6; i++) await transfer(bob);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-streams-ch-'));
  // Every command this file spawns (keys, serve, ingest) inherits the store: chDB in `dir`.
  process.env.CHAINQ_STORE = `chdb:${dir}`;
  server = await startServer(dir, ['--stream-heartbeat', '0.5']);
  follower = await followInServer(anvil.url, dir, { batchBlocks: 5 });
  // The server and the ingestion job hold chDB's store: no DuckDB file was ever made.
  expect(fs.existsSync(path.join(dir, 'chainq.duckdb'))).toBe(false);
  expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
}, 180_000);

afterAll(async () => {
  if (follower && follower.child.exitCode === null) follower.child.kill('SIGINT');
  await follower?.done;
  await server?.stop();
  await anvil?.stop();
  if (storeBefore === undefined) delete process.env.CHAINQ_STORE;
  else process.env.CHAINQ_STORE = storeBefore;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A client that drops its connection at random and resumes with its last cursor, until stopped. */
function client(start: number): { consumer: StreamConsumer; stop(): Promise<void> } {
  const consumer = new StreamConsumer();
  let running = true;
  let close: () => void = () => undefined;
  const loop = (async () => {
    while (running) {
      const s = await openStream(`${server.url}/v1/evm/erc20/events/transfer/stream?network=ETH&token=${token}&block_start=${start}`, server.key, consumer.cursor);
      if (s.status !== 200) throw new Error(`stream refused: ${JSON.stringify(s.error)}`);
      close = s.close;
      consumer.reconnected();
      const drop = setTimeout(() => s.close(), 300 + Math.random() * 2_000);
      const apply = setInterval(() => consumer.apply(s.events), 20);
      await s.ended;
      clearTimeout(drop);
      clearInterval(apply);
      consumer.apply(s.events);
    }
  })();
  return {
    consumer,
    async stop() {
      running = false;
      close();
      await loop;
    },
  };
}

const blockOf = (cursor: string | undefined) => (cursor ? Number(JSON.parse(Buffer.from(cursor, 'base64url').toString()).b) : -1);

async function reached(c: StreamConsumer, block: number, timeoutMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (blockOf(c.cursor) < block) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`a client did not reach block ${block} (at ${blockOf(c.cursor)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('live streams on chDB', { timeout: 180_000 }, () => {
  it('clients in history and at the head, dropping and resuming through a reorg of depth 2, each end equal to the node eth_getLogs', async () => {
    const head = await chain.blockNumber();
    const clients = [1, 3, 5, head].map((start) => ({ start, ...client(start) }));
    try {
      for (let i = 0; i < 2; i++) await transfer(bob);
      const snapshot = await chain.rpc<Hex>('evm_snapshot');
      for (let i = 0; i < 2; i++) await transfer(bob);
      const forked = await chain.blockNumber();
      await Promise.all(clients.map((c) => reached(c.consumer, forked)));
      expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
      for (let i = 0; i < 3; i++) await transfer(carol);

      const tip = await chain.blockNumber();
      const logs = await chain.rpc<{ blockNumber: Hex; topics: Hex[] }[]>('eth_getLogs', [{ address: token, fromBlock: '0x1', toBlock: `0x${tip.toString(16)}` }]);
      const truth = logs.map((l) => ({ block_number: Number(BigInt(l.blockNumber)), receiver: `0x${l.topics[2]?.slice(26)}` }));
      await Promise.all(clients.map((c) => reached(c.consumer, tip)));
      for (const c of clients) {
        const held = c.consumer.rows.map((r) => ({ block_number: r.block_number, receiver: String(r.receiver) }));
        expect(held).toEqual(truth.filter((r) => r.block_number >= c.start));
      }
      expect(clients.reduce((n, c) => n + c.consumer.undos, 0)).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((c) => c.stop()));
    }
  });
});
