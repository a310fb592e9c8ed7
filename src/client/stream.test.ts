/**
 * The client's stream() and pull() against a real `chainq serve` whose store
 * follows a real chain (anvil, ingested by `chainq ingest evm --follow` inside
 * the server): a bounded stream delivers exactly the raw endpoint's rows; a
 * connection dropped mid-stream (by a proxy that cuts it) is resumed from the
 * last cursor with Last-Event-ID, with no row missed or repeated; a reorg
 * reaches the consumer as an undo event; a pull continues from a cursor, and a
 * rolled-back cursor is CursorReorgedError carrying where to continue.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry } from '../catalog/coverage.ts';
import type { Anvil } from '../../test/helpers/anvil.ts';
import type { Chain } from '../../test/helpers/chain.ts';
import type { RunningCli } from '../../test/helpers/cli.ts';
import { followInServer } from '../../test/helpers/ingestEvm.ts';
import { startServer, type Server } from '../../test/helpers/server.ts';
import { startSseProxy, type SseProxy } from '../../test/helpers/sseProxy.ts';
import { startTokenChain } from '../../test/helpers/tokenChain.ts';
import { createClient, CursorReorgedError, InvalidRequestError, type ChainqClient, type EvmErc20TransferRow, type StreamEvent } from './index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let anvil: Anvil;
let chain: Chain;
let token: Hex;
let alice: Hex;
let bob: Hex;
let carol: Hex;
let dir: string;
let server: Server;
let follower: RunningCli;
let proxy: SseProxy;
let cq: ChainqClient;
let viaProxy: ChainqClient;

/** Sends one token transfer (its own block) and returns that block. */
async function transfer(to: Hex, amount: bigint): Promise<number> {
  return Number(BigInt((await chain.send('TestToken', token, 'transfer', [to, amount], { from: alice })).blockNumber));
}

async function newest(): Promise<number> {
  const res = await fetch(`${server.url}/v1/coverage?protocol=erc20&network=ETH`, { headers: { 'x-api-key': server.key } });
  const [entry] = ((await res.json()) as { coverage: CoverageEntry[] }).coverage;
  return entry?.newest.block ?? 0;
}

/** Waits until the server serves `block` (the follower ingested it). */
async function served(block: number): Promise<void> {
  const t0 = Date.now();
  while ((await newest()) < block) {
    if (Date.now() - t0 > 30_000) throw new Error(`block ${block} not served after 30 s`);
    await sleep(50);
  }
}

/** The raw endpoint's rows of blocks from..to: what every stream and pull must add up to. */
async function rawRows(from: number, to: number): Promise<EvmErc20TransferRow[]> {
  return (await cq.evmErc20Transfer({ network: 'ETH', token, block_start: from, block_end: to }).json()).events;
}

/** The newest block an event says is delivered. */
function deliveredBy(e: StreamEvent<EvmErc20TransferRow>): number {
  if (e.type === 'rows') return e.to_block;
  return e.block_number;
}

/** The rows a consumer holds after these events: rows appended, rows above an undo's block dropped. */
function applied(events: readonly StreamEvent<EvmErc20TransferRow>[]): EvmErc20TransferRow[] {
  let rows: EvmErc20TransferRow[] = [];
  for (const e of events) {
    if (e.type === 'rows') rows = [...rows, ...e.events];
    if (e.type === 'undo') rows = rows.filter((r) => (r.block_number ?? 0) <= e.block_number);
  }
  return rows;
}

beforeAll(async () => {
  ({ anvil, chain, token, alice, bob, carol } = await startTokenChain());
  for (let i = 1; i <= 3; i++) await transfer(bob, BigInt(i));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-client-stream-'));
  server = await startServer(dir);
  follower = await followInServer(anvil.url, dir);
  await served(await chain.blockNumber());
  proxy = await startSseProxy(server.url);
  cq = createClient({ baseUrl: server.url, apiKey: server.key });
  viaProxy = createClient({ baseUrl: proxy.url, apiKey: server.key });
}, 120_000);

afterAll(async () => {
  if (follower && follower.child.exitCode === null) follower.child.kill('SIGINT');
  await follower?.done;
  await proxy?.close();
  await server?.stop();
  await anvil?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('client.stream() and client.pull() against a server following anvil', { timeout: 120_000 }, () => {
  it('a bounded stream delivers exactly the raw endpoint rows of its range, then end with the last cursor', async () => {
    const tip = await chain.blockNumber();
    const events: StreamEvent<EvmErc20TransferRow>[] = [];
    for await (const e of cq.stream('evmErc20Transfer', { network: 'ETH', token, block_start: 1, block_end: tip })) events.push(e);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: 'end', block_number: tip });
    expect(end?.cursor).toBe(events.at(-2)?.cursor);
    expect(events.filter((e) => e.type === 'end')).toHaveLength(1);
    expect(applied(events)).toEqual(await rawRows(1, tip));
    expect((await rawRows(1, tip)).length).toBe(4);
  });

  it('a connection dropped mid-stream is resumed from the last cursor (Last-Event-ID): no row missed, none repeated', async () => {
    const start = await chain.blockNumber();
    proxy.cutAfterRows = 1;
    proxy.lastIdBeforeCut = null;
    const before = proxy.requests.length;
    const abort = new AbortController();
    const events: StreamEvent<EvmErc20TransferRow>[] = [];
    let last = 0;
    for await (const e of viaProxy.stream('evmErc20Transfer', { network: 'ETH', token, block_start: 1 }, { signal: abort.signal, reconnectBaseMs: 50 })) {
      events.push(e);
      // Once the first rows are in (and the connection cut after them), the chain moves on: three more blocks of transfers.
      if (last === 0 && e.type === 'rows') {
        for (let i = 1; i <= 3; i++) last = await transfer(bob, BigInt(10 + i));
      }
      if (last > 0 && deliveredBy(e) >= last) abort.abort();
    }
    const requests = proxy.requests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests[0]!.lastEventId).toBeNull();
    expect(proxy.lastIdBeforeCut).not.toBeNull();
    expect(requests[1]!.lastEventId).toBe(proxy.lastIdBeforeCut);
    expect(requests[1]!.url).not.toMatch(/block_start=/);
    expect(last).toBeGreaterThan(start);
    expect(applied(events)).toEqual(await rawRows(1, last));
  });

  it('a reorg under a following stream arrives as undo at the fork point; the rows kept plus the new ones are the new chain', async () => {
    const forkPoint = await chain.blockNumber();
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    const tipA = [await transfer(bob, 101n), await transfer(bob, 102n)].at(-1)!;
    const abort = new AbortController();
    const events: StreamEvent<EvmErc20TransferRow>[] = [];
    let tipB = 0;
    for await (const e of cq.stream('evmErc20Transfer', { network: 'ETH', token, block_start: 1 }, { signal: abort.signal })) {
      events.push(e);
      if (tipB === 0 && deliveredBy(e) >= tipA && e.type !== 'undo') {
        // Chain A was delivered; now it is replaced by a longer chain B paying carol.
        expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
        for (let i = 1; i <= 3; i++) tipB = await transfer(carol, BigInt(200 + i));
      }
      if (tipB > 0 && events.some((x) => x.type === 'undo') && e.type !== 'undo' && deliveredBy(e) >= tipB) abort.abort();
    }
    const undo = events.find((e) => e.type === 'undo');
    expect(undo).toMatchObject({ type: 'undo', block_number: forkPoint });
    const kept = applied(events);
    expect(kept.some((r) => r.receiver?.toLowerCase() === carol.toLowerCase())).toBe(true);
    // Chain A's transfers to bob, above the fork point, are gone.
    expect(kept.filter((r) => (r.block_number ?? 0) > forkPoint && r.receiver?.toLowerCase() === bob.toLowerCase())).toEqual([]);
    expect(kept).toEqual(await rawRows(1, tipB));
  });

  it('pull() continues from a cursor; a rolled-back cursor is CursorReorgedError (409) with the block and the cursor to continue from', async () => {
    const forkPoint = await chain.blockNumber();
    const cursorAt = async (block: number) => {
      let cursor: string | null = null;
      for await (const e of cq.stream('evmErc20Transfer', { network: 'ETH', token, block_start: 1, block_end: block })) cursor = e.cursor;
      if (cursor === null) throw new Error('the stream handed out no cursor');
      return cursor;
    };
    const atFork = await cursorAt(forkPoint);
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    const tipA = [await transfer(bob, 301n), await transfer(bob, 302n)].at(-1)!;
    await served(tipA);
    const pulled = await cq.pull('evmErc20Transfer', { network: 'ETH', token }, { cursor: atFork });
    expect(pulled.events).toEqual(await rawRows(forkPoint + 1, tipA));
    expect(pulled.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const atA = pulled.nextCursor;

    expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
    let tipB = 0;
    for (let i = 1; i <= 3; i++) tipB = await transfer(carol, BigInt(400 + i));
    await served(tipB);
    const err = await cq.pull('evmErc20Transfer', { network: 'ETH', token }, { cursor: atA }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorReorgedError);
    const reorged = err as CursorReorgedError;
    expect([reorged.status, reorged.code, reorged.blockNumber]).toEqual([409, 'cursor_reorged', forkPoint]);
    expect(reorged.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    const again = await cq.pull('evmErc20Transfer', { network: 'ETH', token }, { cursor: reorged.cursor });
    expect(again.events).toEqual(await rawRows(forkPoint + 1, tipB));
  });

  it('a refusal before the stream starts is thrown typed and not retried', async () => {
    const before = proxy.requests.length;
    const err = await (async () => {
      const events = viaProxy.stream('evmErc20Transfer', { network: 'ETH', token }, { cursor: 'not-a-cursor', reconnectBaseMs: 10 });
      return events.next();
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).code).toBe('invalid_cursor');
    expect(proxy.requests.length - before).toBe(1);
  });
});
