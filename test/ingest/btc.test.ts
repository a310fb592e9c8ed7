import { formatUnits } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/apiError.ts';
import { ingestBtc } from '../../src/ingest/btc/ingestBtc.ts';
import { createBtcRpcClient } from '../../src/ingest/btc/rpcClient.ts';
import { assertChainCoverage } from '../../src/query/coverage.ts';
import type { Store } from '../../src/store/types.ts';
import { HttpAnswer, expectWaitsUpTo, recordingRetry, startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { ANCHOR_SCRIPT, bitcoindHandler, BtcChain, NONSTANDARD_SCRIPT, PUBKEY_SCRIPT, witnessUnknownScript } from './fixtures/btc.ts';
import { coverage, crashAfter, dump, memoryStore, SimulatedCrash } from './helpers.ts';
import { engineSql } from '../helpers/engineSql.ts';

const FIRST = 925_000; // a height of late 2025
const START = Math.floor(Date.UTC(2025, 11, 1) / 1000);
let server: SourceServer;
let store: Store;
let chain: BtcChain;
let rpc: string;

beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  chain = new BtcChain(FIRST, START);
  chain.mine(60, 5);
  server.handlers.set('/', bitcoindHandler(chain, 'chainq', 's3cr:et'));
  rpc = `${server.url.replace('http://', 'http://chainq:s3cr%3Aet@')}/`;
  store = await memoryStore();
});
afterEach(async () => store.close());

const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const run = (over: Partial<Parameters<typeof ingestBtc>[0]> = {}, s: Store = store) =>
  ingestBtc({ store: s, rpc, from: FIRST, to: FIRST + 49, confirmations: 0, batchBlocks: 10, http: fast, ...over });

async function rows(s: Store) {
  const r = await engineSql(s).all<{
    block_number: bigint;
    tx_index: number;
    vout: number;
    time: Date;
    tx_hash: string;
    token: string;
    sender: string | null;
    receiver: string;
    amount_raw: bigint;
    amount: number;
  }>(`SELECT * EXCLUDE (network) FROM btc_native_transfer ORDER BY block_number, tx_index, vout`);
  return r.map((x) => [Number(x.block_number), x.tx_index, x.vout, x.time.toISOString(), x.tx_hash, x.token, x.sender, x.receiver, x.amount_raw, x.amount]);
}

function expected(lo: number, hi: number) {
  const time = (h: number) => new Date((chain.blocks[h - FIRST] as { time: number }).time * 1000).toISOString();
  return chain.expected
    .filter((e) => e.height >= lo && e.height <= hi)
    .sort((a, b) => a.height - b.height || a.txIndex - b.txIndex || a.vout - b.vout)
    .map((e) => [e.height, e.txIndex, e.vout, time(e.height), e.txid, 'BTC', e.sender, e.receiver, e.sats, Number(formatUnits(e.sats, 8))]);
}

const snapshot = async (s: Store) => ({ rows: await dump(s, 'btc_native_transfer'), blocks: await dump(s, 'blocks'), coverage: await dump(s, 'coverage') });

describe('Bitcoin Core JSON-RPC ingestion', () => {
  it('stores the transfers of every block under the UTXO rule, keeping txid and vout', async () => {
    const summary = await run();
    expect(summary).toMatchObject({ done: 50, failed: [] });
    const want = expected(FIRST, FIRST + 49);
    expect(want.length).toBeGreaterThan(150);
    expect(await rows(store)).toEqual(want);
    // Every standard address type made it through, and change never did.
    const prefixes = new Set(want.map((w) => String(w[7]).replace(/^(bc1q|bc1p|1|3).*$/, '$1')));
    expect([...prefixes].sort()).toEqual(['1', '3', 'bc1p', 'bc1q']);
    expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, FIRST + 49]]);
    const blocks = await engineSql(store).all<{ number: bigint; hash: string; parent_hash: string }>(`SELECT number, hash, parent_hash FROM blocks WHERE network = 'BTC' ORDER BY number`);
    expect(blocks.map((b) => b.hash)).toEqual(chain.blocks.slice(0, 50).map((b) => b.hash));
    expect(blocks[1]!.parent_hash).toBe(blocks[0]!.hash);
  });

  it('names no sender when no input has an address, and pays anchor and future-witness outputs like any address', async () => {
    const [w0, w1, w2, w3, w4] = chain.wallets.filter((w) => w.address !== null);
    const v2 = witnessUnknownScript(2, Buffer.alloc(32, 0x21));
    const height = chain.height + 1;
    const txids = chain.mineScripted([
      // Every input spends a script Core prints no address for (pay-to-pubkey, a bare OP_TRUE).
      {
        inputs: [
          { script: PUBKEY_SCRIPT, sats: 50_000n },
          { script: NONSTANDARD_SCRIPT, sats: 10_000n },
        ],
        outputs: [
          { script: w0!, sats: 40_000n },
          { script: w1!, sats: 19_000n },
        ],
      },
      // A larger input without an address does not make the sender: w2 does. A 240-sat pay-to-anchor output and a
      // witness v2 output are transfers; a zero-value (ephemeral) anchor and the change are not.
      {
        inputs: [
          { script: PUBKEY_SCRIPT, sats: 500_000n },
          { script: w2!, sats: 100_000n },
        ],
        outputs: [
          { script: w3!, sats: 60_000n },
          { script: ANCHOR_SCRIPT, sats: 240n },
          { script: ANCHOR_SCRIPT, sats: 0n },
          { script: v2, sats: 1_000n },
          { script: w2!, sats: 538_000n },
        ],
      },
      // Spending an anchor beside a wallet's output (a fee bump): the wallet funds most, so it is the sender.
      {
        inputs: [
          { script: ANCHOR_SCRIPT, sats: 240n },
          { script: w3!, sats: 30_000n },
        ],
        outputs: [{ script: w4!, sats: 29_000n }],
      },
      // Spending an anchor alone: its address is the only funder, hence the sender.
      { inputs: [{ script: ANCHOR_SCRIPT, sats: 240n }], outputs: [{ script: w0!, sats: 200n }] },
    ]);
    await run({ from: height, to: height });
    const got = (await rows(store)).filter((r) => r[0] === height && r[1] !== 0).map((r) => [r[4], r[2], r[6], r[7], r[8]]);
    expect(got).toEqual([
      [txids[0], 0, null, w0!.address, 40_000n],
      [txids[0], 1, null, w1!.address, 19_000n],
      [txids[1], 0, w2!.address, w3!.address, 60_000n],
      [txids[1], 1, w2!.address, 'bc1pfeessrawgf', 240n],
      [txids[1], 3, w2!.address, v2.address, 1_000n],
      [txids[2], 0, w3!.address, w4!.address, 29_000n],
      [txids[3], 0, 'bc1pfeessrawgf', w0!.address, 200n],
    ]);
    expect(v2.address).toMatch(/^bc1z/);
  });

  it('sends the credentials of the URL as basic auth, and reports refused ones clearly', async () => {
    await run({ to: FIRST });
    expect(server.requests.every((r) => r.auth === `Basic ${Buffer.from('chainq:s3cr:et').toString('base64')}`)).toBe(true);
    await expect(run({ rpc: `${server.url.replace('http://', 'http://chainq:wrong@')}/`, force: true })).rejects.toThrow(/refused the credentials/);
  });

  it('is idempotent: rerunning skips, --force rewrites without duplicates', async () => {
    await run();
    const first = await snapshot(store);
    expect(await run()).toMatchObject({ done: 0, skipped: 50 });
    expect(await run({ force: true })).toMatchObject({ done: 50 });
    expect(await snapshot(store)).toEqual(first);
  });

  it('resumes after a crash between batches and ends identical to an uninterrupted run', async () => {
    const reference = await memoryStore();
    try {
      await run({}, reference);
      await expect(run({ hooks: crashAfter(3) })).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, FIRST + 29]]);
      expect(await run()).toMatchObject({ done: 20, skipped: 30 });
      expect(await snapshot(store)).toEqual(await snapshot(reference));
    } finally {
      await reference.close();
    }
  });

  it('retries HTTP 500/503 outages with exponential backoff, but not RPC errors', async () => {
    server.fail('/', { status: 503, times: 2 });
    server.fail('/', { status: 500, times: 1, match: (b) => (b as { method?: string }).method === 'getblock' });
    const { policy, waits } = recordingRetry(4, 50);
    expect(await run({ http: { retry: policy }, to: FIRST + 9, concurrency: 1 })).toMatchObject({ done: 10 });
    expectWaitsUpTo(waits, [50, 100, 50]);
    expect(await rows(store)).toEqual(expected(FIRST, FIRST + 9));
    // A height the node does not have is an RPC error (HTTP 500 + JSON): reported at once, not retried.
    const before = server.requests.length;
    const client = createBtcRpcClient(rpc, fast);
    await expect(client.getBlock('00'.repeat(32))).rejects.toThrow(/Block not found \(code -5\)/);
    expect(server.requests.length - before).toBe(1);
  });

  it('flags ranges that were never ingested', async () => {
    await run({ to: FIRST + 19 });
    const err = await assertChainCoverage(store, 'btc/native/transfer', 'BTC', { kind: 'blocks', start: FIRST + 10, end: FIRST + 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).extra).toMatchObject({ missing_blocks: [[FIRST + 20, FIRST + 30]] });
  });

  it('rolls back a reorg to the common ancestor', async () => {
    await run({ to: FIRST + 39 });
    chain.rewind(FIRST + 37); // blocks 37–59 are replaced by a competing branch
    chain.mine(23, 999);
    await run({ from: FIRST + 40, to: FIRST + 49 });
    expect(await rows(store)).toEqual(expected(FIRST, FIRST + 49));
    const fresh = await memoryStore();
    try {
      await run({}, fresh);
      expect(await snapshot(store)).toEqual(await snapshot(fresh));
    } finally {
      await fresh.close();
    }
  });

  describe('a node whose getblock answer is not the whole block', () => {
    /** The first block from `from` on with a transfer paid by a transaction besides its coinbase. */
    const blockWithPayment = (from: number) => chain.expected.find((e) => e.height >= from && e.txIndex > 0)!.height;
    type RpcTxJson = { vin: Record<string, unknown>[] };
    /** Serves the honest node, except getblock of `height`, whose JSON `cut` changes while `lies` lasts. */
    function lieAbout(height: number, cut: (block: { tx: RpcTxJson[]; nTx: number }) => void, lies = { left: Number.POSITIVE_INFINITY }) {
      const honest = bitcoindHandler(chain, 'chainq', 's3cr:et');
      server.handlers.set('/', (body, req) => {
        const call = body as { method?: string; params?: unknown[]; id?: unknown };
        if (call.method !== 'getblock' || call.params?.[0] !== chain.hashAt(height) || lies.left-- <= 0) return honest(body, req);
        const block = structuredClone(chain.blocks[height - FIRST]) as { tx: RpcTxJson[]; nTx: number };
        cut(block);
        return new HttpAnswer(200, JSON.stringify({ result: block, error: null, id: call.id }).replace(/"__btc__([0-9.]+)"/g, '$1'));
      });
    }
    const getblocksOf = (height: number) =>
      server.requests.filter((r) => (r.body as { method?: string; params?: unknown[] }).method === 'getblock' && (r.body as { params: unknown[] }).params[0] === chain.hashAt(height));

    for (const [what, cut] of [
      ['fewer transactions than nTx', (b: { tx: RpcTxJson[] }) => void b.tx.pop()],
      ['an input without prevout', (b: { tx: RpcTxJson[] }) => void delete b.tx[1]!.vin[0]!.prevout],
    ] as const) {
      it(`fails the batch (${what}) naming the block, leaves it uncovered, and an honest node then fills it`, async () => {
        const bad = blockWithPayment(FIRST + 12);
        lieAbout(bad, cut);
        const err = await run({ to: FIRST + 29 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toContain(`BTC block ${bad}`);
        const batchLo = FIRST + Math.floor((bad - FIRST) / 10) * 10;
        expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, batchLo - 1]]);
        expect(getblocksOf(bad)).toHaveLength(1 + fast.retry.retries);

        server.handlers.set('/', bitcoindHandler(chain, 'chainq', 's3cr:et'));
        await run({ to: FIRST + 29 });
        expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, FIRST + 29]]);
        expect(await rows(store)).toEqual(expected(FIRST, FIRST + 29));
      });
    }

    it('asks again while the answer is short and stores the block whole once the node answers it all', async () => {
      const bad = blockWithPayment(FIRST);
      lieAbout(bad, (b) => void b.tx.splice(1), { left: 2 });
      expect(await run({ to: FIRST + 9 })).toMatchObject({ done: 10, failed: [] });
      expect(await rows(store)).toEqual(expected(FIRST, FIRST + 9));
    });
  });

  it('ingests up to the head less the confirmations, and continues from the checkpoint', async () => {
    await ingestBtc({ store, rpc, from: FIRST, confirmations: 6, batchBlocks: 10, http: fast });
    expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, chain.height - 6]]);
    chain.mine(10, 77);
    await ingestBtc({ store, rpc, confirmations: 6, batchBlocks: 10, http: fast }); // no --from: continue
    expect(await coverage(store, 'btc/native/transfer', 'BTC')).toEqual([[FIRST, chain.height - 6]]);
    expect(await rows(store)).toEqual(expected(FIRST, chain.height - 6));
  });
});
