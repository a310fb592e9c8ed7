/**
 * Several nodes for the Tron and Bitcoin adapters: two fake nodes serving the
 * same chain, one of which dies (or rate-limits) in the middle of a backfill;
 * the store ends as one uninterrupted run over a single node leaves it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestBtc } from '../../src/ingest/btc/ingestBtc.ts';
import { ingestTron } from '../../src/ingest/tron/ingestTron.ts';
import type { Store } from '../../src/store/types.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { bitcoindHandler, BtcChain } from './fixtures/btc.ts';
import { TronChain, tronHandlers } from './fixtures/tron.ts';
import { dump, memoryStore } from './helpers.ts';

const fast = { retry: { retries: 4, baseDelayMs: 5, maxDelayMs: 50 } };

let nodeA: SourceServer;
let nodeB: SourceServer;
let single: Store;
let two: Store;

beforeEach(async () => {
  nodeA = await startSourceServer();
  nodeB = await startSourceServer();
  single = await memoryStore();
  two = await memoryStore();
});
afterEach(async () => {
  await Promise.all([nodeA.close(), nodeB.close(), single.close(), two.close()]);
});

/** Every table a chain adapter writes, for store comparisons. */
const snapshot = async (s: Store, table: string) => ({ rows: await dump(s, table), blocks: await dump(s, 'blocks'), coverage: await dump(s, 'coverage') });

/** Closes `node` (it dies: connections cut, new ones refused) after `n` committed batches. */
function dieAfter(node: SourceServer, n: number): { afterCommit: () => Promise<void>; readonly died: () => boolean } {
  let commits = 0;
  let died = false;
  return {
    async afterCommit() {
      if (++commits === n) {
        died = true;
        await node.close();
      }
    },
    died: () => died,
  };
}

describe('Bitcoin over two nodes', () => {
  const FIRST = 925_000;
  const START = Math.floor(Date.UTC(2025, 11, 1) / 1000);

  it('a node dying mid-backfill: the other node finishes it, and the store equals a single-node run', async () => {
    const chain = new BtcChain(FIRST, START);
    chain.mine(60, 5);
    for (const node of [nodeA, nodeB]) node.handlers.set('/', bitcoindHandler(chain, 'chainq', 's3cr:et'));
    const url = (s: SourceServer) => `${s.url.replace('http://', 'http://chainq:s3cr%3Aet@')}/`;
    const common = { from: FIRST, to: FIRST + 49, confirmations: 0, batchBlocks: 10, concurrency: 4, http: fast };

    await ingestBtc({ store: single, rpc: url(nodeA), ...common });
    const servedAlone = nodeA.requests.length;
    nodeA.requests.length = 0;

    const death = dieAfter(nodeB, 2);
    const summary = await ingestBtc({ store: two, rpc: [url(nodeA), url(nodeB)], ...common, hooks: { afterCommit: death.afterCommit } });
    expect(death.died()).toBe(true);
    expect(summary).toMatchObject({ done: 50, failed: [] });
    // Both served before the death; the survivor did the rest.
    expect(nodeB.requests.length).toBeGreaterThan(0);
    expect(nodeA.requests.length).toBeGreaterThan(0);
    expect(nodeA.requests.length + nodeB.requests.length).toBeGreaterThanOrEqual(servedAlone);
    // Credentials of each URL reached its node.
    expect(new Set(nodeB.requests.map((r) => r.auth))).toEqual(new Set([`Basic ${Buffer.from('chainq:s3cr:et').toString('base64')}`]));
    expect(await snapshot(two, 'btc_native_transfer')).toEqual(await snapshot(single, 'btc_native_transfer'));
  });
});

describe('Tron over two nodes', () => {
  const FIRST = 78_450_000;
  const START_MS = Date.UTC(2025, 11, 1);
  let chain: TronChain;

  beforeEach(() => {
    chain = new TronChain(FIRST, START_MS);
    chain.grow(260, 42);
    for (const node of [nodeA, nodeB]) for (const [p, h] of tronHandlers(chain)) node.handlers.set(p, h);
  });
  const common = { from: FIRST, to: FIRST + 239, confirmations: 0, batchBlocks: 50, concurrency: 4, http: fast };
  const tables = async (s: Store) => ({ native: await snapshot(s, 'tron_native_transfer'), trc20: await dump(s, 'tron_trc20_transfer') });

  it('a node dying mid-backfill: the other node finishes it, and the store equals a single-node run', async () => {
    await ingestTron({ store: single, api: nodeA.url, ...common });
    nodeA.requests.length = 0;
    const death = dieAfter(nodeB, 2);
    const summary = await ingestTron({ store: two, api: [nodeA.url, nodeB.url], ...common, hooks: { afterCommit: death.afterCommit } });
    expect(death.died()).toBe(true);
    expect(summary).toMatchObject({ done: 240, failed: [] });
    expect(nodeB.requests.length).toBeGreaterThan(0);
    expect(nodeA.requests.length).toBeGreaterThan(0);
    expect(await tables(two)).toEqual(await tables(single));
  });

  it('a node answering 429 with Retry-After is left alone while the other one takes the load', async () => {
    await ingestTron({ store: single, api: nodeA.url, ...common });
    nodeA.requests.length = 0;
    // Retry-After: 30 s, far longer than the run: had the node been asked again before then, it would have answered normally.
    nodeB.fail('/wallet/gettransactioninfobyblocknum', { status: 429, times: 1, retryAfter: '30' });
    const summary = await ingestTron({ store: two, api: [nodeA.url, nodeB.url], ...common });
    expect(summary).toMatchObject({ done: 240, failed: [] });
    const limitedAt = nodeB.requests.findIndex((r) => r.status === 429);
    expect(limitedAt).toBeGreaterThanOrEqual(0);
    // Only requests already sent when it said 429 reached it afterwards; the other node took the rest.
    expect(nodeB.requests.length - limitedAt).toBeLessThanOrEqual(1 + 64);
    expect(nodeA.requests.length).toBeGreaterThan(nodeB.requests.length);
    expect(await tables(two)).toEqual(await tables(single));
  });
});
