/**
 * The JSON-RPC transport and the getLogs range splitter against a real anvil,
 * behind a proxy that injects the faults real providers produce.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../../../test/helpers/anvil.ts';
import { connectChain } from '../../../test/helpers/chain.ts';
import { startFaultyProxy, type FaultyProxy } from '../../../test/helpers/faultyProxy.ts';
import { openLogFile } from '../evm/logFile.ts';
import { createRpc } from './createRpc.ts';
import { isUnsupportedMethod, RpcResponseError } from './errors.ts';
import { createLogFetcher, type RpcLog } from './getLogs.ts';

type Req = { method: string; params: { fromBlock: Hex; toBlock: Hex }[]; id: number };
const isBatch = (b: unknown): b is Req[] => Array.isArray(b);
const width = (r: Req) => Number(BigInt(r.params[0]!.toBlock) - BigInt(r.params[0]!.fromBlock)) + 1;
const TRANSFER: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

describe('JSON-RPC transport and getLogs splitting, against anvil behind a faulty proxy', () => {
  let anvil: Anvil;
  let proxy: FaultyProxy;
  let head: number;
  let allLogs: RpcLog[];

  beforeAll(async () => {
    anvil = await startAnvil();
    const chain = await connectChain(anvil.url);
    const spammer = await chain.deploy('LogSpammer');
    for (let i = 0; i < 30; i++) await chain.send('LogSpammer', spammer, 'spam', [BigInt(1 + (i % 4)), BigInt(i * 10)]);
    head = await chain.blockNumber();
    allLogs = await anvil.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, topics: [TRANSFER] }]);
    proxy = await startFaultyProxy(anvil.url);
  });
  beforeEach(() => {
    proxy.requests.length = 0;
    proxy.rule = () => null;
  });
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  it('retries rate limits and server errors with backoff, then answers', async () => {
    proxy.rule = (_b, i) => (i === 0 ? { status: 429, body: { error: 'slow down' } } : i === 1 ? { status: 503, body: 'busy' } : null);
    const rpc = createRpc({ url: proxy.url });
    expect(Number(BigInt(await rpc.request<Hex>('eth_blockNumber', [])))).toBe(head);
    expect(proxy.requests.length).toBe(3);
    expect(rpc.stats.retries).toBe(2);
  });

  it('does not retry what a retry cannot fix: a revert, an unknown method', async () => {
    proxy.rule = (b) => ({
      body: {
        jsonrpc: '2.0',
        id: (b as Req).id,
        error: (b as Req).method === 'eth_call' ? { code: 3, message: 'execution reverted' } : { code: -32601, message: 'the method debug_x does not exist/is not available' },
      },
    });
    const rpc = createRpc({ url: proxy.url });
    await expect(rpc.request('eth_call', [{ to: '0x0000000000000000000000000000000000000001' }, 'latest'])).rejects.toThrow(/execution reverted/);
    const e = await rpc.request('debug_x', []).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcResponseError);
    expect(isUnsupportedMethod(e)).toBe(true);
    expect(proxy.requests.length).toBe(2);
  });

  it('sends many calls as batch arrays, shrinking them when the node refuses the size, and retries a rate-limited item alone', async () => {
    proxy.rule = (b) => (isBatch(b) && b.length > 8 ? { body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } } } : null);
    const rpc = createRpc({ url: proxy.url, batchSize: 20 });
    const numbers = Array.from({ length: 30 }, (_, i) => i);
    const blocks = await rpc.requestMany<{ number: Hex; hash: Hex }>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] })));
    expect(blocks.map((b) => Number(BigInt(b.number)))).toEqual(numbers);
    const sizes = proxy.requests.filter(isBatch).map((b) => b.length);
    expect(sizes[0]).toBe(20);
    expect(Math.max(...sizes.slice(2))).toBeLessThanOrEqual(8);

    // A 429 inside a batch answer (some providers rate-limit per item): only that item is sent again.
    let once = true;
    proxy.rule = (b) => {
      if (isBatch(b) && once) {
        once = false;
        return { body: b.map((r, k) => (k === 1 ? { jsonrpc: '2.0', id: r.id, error: { code: 429, message: 'rate limited' } } : { jsonrpc: '2.0', id: r.id, result: `0x${k}` })) };
      }
      return null;
    };
    proxy.requests.length = 0;
    const rpc2 = createRpc({ url: proxy.url, batchSize: 3 });
    const out = await rpc2.requestMany<Hex>([0, 1, 2].map(() => ({ method: 'eth_chainId', params: [] })));
    expect(out).toEqual(['0x0', '0x1', '0x2']); // item 1 from the node (chain 1) on the retry, the others from the first answer
    expect(proxy.requests.map((b) => (isBatch(b) ? b.length : 1))).toEqual([3, 1]);
  });

  it('getLogs: a range the node refuses is split as the node suggests, and the suggestion is kept; the logs equal one direct call', async () => {
    // QuickNode's wording; Ponder's helper adopts the number as the range to use.
    proxy.rule = (b) =>
      !isBatch(b) && (b as Req).method === 'eth_getLogs' && width(b as Req) > 5
        ? { body: { jsonrpc: '2.0', id: (b as Req).id, error: { code: -32614, message: 'eth_getLogs is limited to a 5 range' } } }
        : null;
    const fetcher = createLogFetcher(createRpc({ url: proxy.url }), { topic0: [TRANSFER] }, { initialRange: 1000 });
    expect(await fetcher.fetch(0, head)).toEqual(allLogs);
    expect(fetcher.range).toBeLessThanOrEqual(5);
    const before = fetcher.calls;
    await fetcher.fetch(0, head);
    // Once adopted, no call is refused any more.
    const refused = proxy.requests.slice(-(fetcher.calls - before)).filter((b) => !isBatch(b) && width(b as Req) > 5);
    expect(refused).toEqual([]);
  });

  it('getLogs: without a hint the range is halved until the node accepts it, then grows again', async () => {
    proxy.rule = (b) =>
      !isBatch(b) && (b as Req).method === 'eth_getLogs' && width(b as Req) > 8
        ? { body: { jsonrpc: '2.0', id: (b as Req).id, error: { code: -32005, message: 'query returned more than 10000 results' } } }
        : null;
    const fetcher = createLogFetcher(createRpc({ url: proxy.url }), { topic0: [TRANSFER] }, { initialRange: 64 });
    expect(await fetcher.fetch(0, head)).toEqual(allLogs);
    expect(proxy.requests.filter((b) => !isBatch(b) && width(b as Req) > 8).length).toBeGreaterThan(0);
    expect(fetcher.range).toBeGreaterThan(8); // grown back after accepted calls, ready for quieter blocks
  });

  it('getLogs: an answer that breaks off mid-array is fetched again, and what the first attempt wrote is cut from the log file', async () => {
    proxy.rule = (b, i) => (i === 0 && !isBatch(b) && (b as Req).method === 'eth_getLogs' ? { cutAfter: 3000 } : null);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cut-'));
    try {
      const writer = openLogFile(path.join(dir, 'logs.json'));
      const fetcher = createLogFetcher(createRpc({ url: proxy.url }), { topic0: [TRANSFER] }, { initialRange: 1000 });
      await fetcher.fetchInto(0, head, writer);
      expect(writer.close()).toBe(true);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'logs.json'), 'utf8'))).toEqual(allLogs);
      expect(proxy.requests.length).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('getLogs: a rate limit (HTTP 429 with Retry-After) on a streamed call is waited out and the call sent again', async () => {
    proxy.rule = (b, i) => (i === 0 && !isBatch(b) && (b as Req).method === 'eth_getLogs' ? { status: 429, headers: { 'retry-after': '0.2' }, body: { error: 'slow down' } } : null);
    const rpc = createRpc({ url: proxy.url });
    const fetcher = createLogFetcher(rpc, { topic0: [TRANSFER] }, { initialRange: 1000 });
    const started = performance.now();
    expect(await fetcher.fetch(0, head)).toEqual(allLogs);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140); // 0.2 s, less the jitter
    expect(rpc.stats.retries).toBe(1);
  });

  it('getLogs: an error that is not about the range fails the fetch instead of looping', async () => {
    proxy.rule = (b) => (!isBatch(b) && (b as Req).method === 'eth_getLogs' ? { body: { jsonrpc: '2.0', id: (b as Req).id, error: { code: -32602, message: 'invalid topic' } } } : null);
    const fetcher = createLogFetcher(createRpc({ url: proxy.url }), { topic0: [TRANSFER] });
    await expect(fetcher.fetch(0, head)).rejects.toThrow(/invalid topic/);
    expect(proxy.requests.length).toBe(1);
  });
});
