/**
 * The JSON-RPC transport over two nodes: two proxies in front of one real
 * anvil, each of which can rate-limit, die and come back.
 */
import type { Hex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../../../test/helpers/anvil.ts';
import { connectChain } from '../../../test/helpers/chain.ts';
import { startFaultyProxy, type FaultyProxy } from '../../../test/helpers/faultyProxy.ts';
import { sleep } from '../../utils/sleep.ts';
import { createRpc } from './createRpc.ts';
import { createLogFetcher, type RpcLog } from './getLogs.ts';

const TRANSFER: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const isGetLogs = (b: unknown) => !Array.isArray(b) && (b as { method?: string }).method === 'eth_getLogs';

describe('JSON-RPC over two nodes', () => {
  let anvil: Anvil;
  let a: FaultyProxy;
  let b: FaultyProxy;
  let head: number;
  let allLogs: RpcLog[];

  beforeAll(async () => {
    anvil = await startAnvil();
    const chain = await connectChain(anvil.url);
    const spammer = await chain.deploy('LogSpammer');
    for (let i = 0; i < 20; i++) await chain.send('LogSpammer', spammer, 'spam', [BigInt(1 + (i % 4)), BigInt(i * 10)]);
    head = await chain.blockNumber();
    allLogs = await anvil.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, topics: [TRANSFER] }]);
    a = await startFaultyProxy(anvil.url);
    b = await startFaultyProxy(anvil.url);
  });
  beforeEach(() => {
    for (const p of [a, b]) {
      p.requests.length = 0;
      p.rule = () => null;
    }
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await anvil?.stop();
  });

  const blockNumber = async (rpc: ReturnType<typeof createRpc>) => Number(BigInt(await rpc.request<Hex>('eth_blockNumber', [])));

  it('a single URL works as before: one node, every request to it', async () => {
    const rpc = createRpc({ url: a.url });
    expect(rpc.urls).toEqual([a.url]);
    expect(await blockNumber(rpc)).toBe(head);
    expect(a.requests.length).toBe(1);
    expect(b.requests.length).toBe(0);
  });

  it('spreads requests over both nodes', async () => {
    const rpc = createRpc({ url: [a.url, b.url], concurrency: 4 });
    for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 8 }, () => blockNumber(rpc)));
    expect(a.requests.length + b.requests.length).toBe(80);
    expect(Math.min(a.requests.length, b.requests.length)).toBeGreaterThan(10);
  });

  it('a node answering 429 with Retry-After is left alone for that long while the other node takes the load, then used again', async () => {
    const toA: number[] = [];
    let limitedAt = 0;
    a.rule = () => {
      toA.push(performance.now());
      if (limitedAt === 0) {
        limitedAt = performance.now();
        return { status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate limited' } };
      }
      return null;
    };
    const rpc = createRpc({ url: [a.url, b.url], concurrency: 2 });
    for (let i = 0; i < 15; i++) await Promise.all(Array.from({ length: 4 }, () => blockNumber(rpc)));
    expect(limitedAt).toBeGreaterThan(0);
    // Nothing but requests already in flight reached A within its Retry-After; B took the load.
    const during = toA.filter((t) => t > limitedAt + 50 && t < limitedAt + 950);
    expect(during).toEqual([]);
    expect(toA.filter((t) => t >= limitedAt && t < limitedAt + 950).length).toBeLessThanOrEqual(3);
    expect(b.requests.length).toBeGreaterThanOrEqual(60 - toA.length);
    expect(rpc.nodes()[0]!.failures).toBe(1);
    // After the second, A serves again.
    await sleep(Math.max(0, limitedAt + 1_050 - performance.now()));
    const before = toA.length;
    for (let i = 0; i < 20; i++) await Promise.all(Array.from({ length: 4 }, () => blockNumber(rpc)));
    expect(toA.length - before).toBeGreaterThan(5);
    expect(rpc.nodes()[0]!.state).toBe('up');
  });

  it('a node that dies is left out without failing a call, retried later, and used again once it is back', async () => {
    const rpc = createRpc({ url: [a.url, b.url], concurrency: 4 });
    for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 4 }, () => blockNumber(rpc)));
    expect(b.requests.length).toBeGreaterThan(0);
    await b.kill();
    const deadFrom = b.requests.length;
    for (let i = 0; i < 20; i++) expect(await Promise.all(Array.from({ length: 4 }, () => blockNumber(rpc)))).toEqual([head, head, head, head]);
    expect(b.requests.length).toBe(deadFrom); // nothing got through: it was down
    expect(rpc.nodes()[1]!.state).not.toBe('up');
    await b.revive();
    const backFrom = b.requests.length;
    // Probed once its time out ends (at most 10 s after the last failure), then given its share again.
    const t0 = performance.now();
    while (b.requests.length - backFrom < 10 && performance.now() - t0 < 20_000) {
      await Promise.all(Array.from({ length: 4 }, () => blockNumber(rpc)));
      await sleep(10);
    }
    expect(b.requests.length - backFrom).toBeGreaterThanOrEqual(10);
    expect(rpc.nodes()[1]!.state).toBe('up');
  }, 30_000);

  it('getLogs: an answer cut off by a node dying mid-stream is fetched whole from the other node', async () => {
    let cut = false;
    const rule = (body: unknown) => {
      if (!cut && isGetLogs(body)) {
        cut = true;
        return { cutAfter: 2000 };
      }
      return null;
    };
    a.rule = rule;
    b.rule = rule;
    const rpc = createRpc({ url: [a.url, b.url] });
    const fetcher = createLogFetcher(rpc, { topic0: [TRANSFER] }, { initialRange: 1000 });
    expect(await fetcher.fetch(0, head)).toEqual(allLogs);
    const calls = [a, b].map((p) => p.requests.filter(isGetLogs).length);
    expect(calls.sort()).toEqual([1, 1]); // the cut one, and the whole one from the other node
  });
});
