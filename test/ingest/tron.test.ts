import { formatUnits } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/apiError.ts';
import { ingestTron } from '../../src/ingest/tron/ingestTron.ts';
import { assertChainCoverage } from '../../src/query/coverage.ts';
import type { Store } from '../../src/store/types.ts';
import { expectWaitsUpTo, recordingRetry, startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { TronChain, tronHandlers, UNKNOWN_TOKEN } from './fixtures/tron.ts';
import { count, coverage, crashAfter, dump, memoryStore, SimulatedCrash } from './helpers.ts';
import { engineSql } from '../helpers/engineSql.ts';

const FIRST = 78_450_000; // near the real Tron height at the start of December 2025
const START_MS = Date.UTC(2025, 11, 1);
let server: SourceServer;
let store: Store;
let chain: TronChain;

beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  chain = new TronChain(FIRST, START_MS);
  chain.grow(260, 42);
  for (const [p, h] of tronHandlers(chain)) server.handlers.set(p, h);
  store = await memoryStore();
});
afterEach(async () => store.close());

const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const run = (over: Partial<Parameters<typeof ingestTron>[0]> = {}, s: Store = store) =>
  ingestTron({ store: s, api: server.url, from: FIRST, to: FIRST + 239, confirmations: 0, batchBlocks: 50, http: fast, ...over });

const timeOf = (block: number) => new Date(START_MS + (block - FIRST) * 3000).toISOString();

async function nativeRows(s: Store) {
  const rows = await engineSql(s).all<{ block_number: bigint; tx_index: number; time: Date; tx_hash: string; token: string; sender: string; receiver: string; amount_raw: bigint; amount: number }>(
    `SELECT * EXCLUDE (network) FROM tron_native_transfer ORDER BY block_number, tx_index`,
  );
  return rows.map((r) => [Number(r.block_number), r.tx_index, r.time.toISOString(), r.tx_hash, r.token, r.sender, r.receiver, r.amount_raw, r.amount]);
}

async function tokenRows(s: Store) {
  const rows = await engineSql(s).all<Record<string, unknown>>(`SELECT * EXCLUDE (network), amount_raw::VARCHAR AS raw FROM tron_trc20_transfer ORDER BY block_number, log_index`);
  return rows.map((r) => [Number(r.block_number), r.log_index, (r.time as Date).toISOString(), r.tx_hash, r.token_address, r.token, r.token_decimals, r.sender, r.receiver, r.raw, r.amount]);
}

const expectedNative = (lo: number, hi: number) =>
  chain.native.filter((t) => t.block >= lo && t.block <= hi).map((t) => [t.block, t.txIndex, timeOf(t.block), t.txid, 'TRX', t.sender, t.receiver, t.sun, Number(formatUnits(t.sun, 6))]);

const expectedTokens = (lo: number, hi: number, any = false) =>
  chain.tokens
    .filter((t) => t.block >= lo && t.block <= hi && (any || t.decimals !== null))
    .map((t) => [
      t.block,
      t.logIndex,
      timeOf(t.block),
      t.txid,
      t.contract,
      t.symbol,
      t.decimals,
      t.sender,
      t.receiver,
      t.raw.toString(),
      t.decimals === null ? Number(t.raw) : Number(formatUnits(t.raw, t.decimals)),
    ]);

async function snapshot(s: Store) {
  return { native: await dump(s, 'tron_native_transfer'), trc20: await dump(s, 'tron_trc20_transfer'), blocks: await dump(s, 'blocks'), coverage: await dump(s, 'coverage') };
}

describe('Tron full-node ingestion', () => {
  it('stores every TransferContract and every registry-token Transfer log, with base58 addresses and scaled amounts', async () => {
    const summary = await run();
    expect(summary).toMatchObject({ done: 240, failed: [] });
    const native = expectedNative(FIRST, FIRST + 239);
    const tokens = expectedTokens(FIRST, FIRST + 239);
    expect(native.length).toBeGreaterThan(100);
    expect(tokens.length).toBeGreaterThan(200);
    expect(await nativeRows(store)).toEqual(native);
    expect(await tokenRows(store)).toEqual(tokens);
    expect((await tokenRows(store)).every((r) => String(r[7]).startsWith('T') && String(r[4]).startsWith('T'))).toBe(true);
    // Blocks, for time ranges and reorg checks.
    const blocks = await engineSql(store).all<{ number: bigint; hash: string; parent_hash: string; time: Date }>(`SELECT * FROM blocks WHERE network = 'TRON' ORDER BY number`);
    expect(blocks).toHaveLength(240);
    expect(blocks[10]).toMatchObject({ hash: (chain.blocks.get(FIRST + 10) as { blockID: string }).blockID, parent_hash: (chain.blocks.get(FIRST + 9) as { blockID: string }).blockID });
    expect(blocks[10]!.time.toISOString()).toBe(timeOf(FIRST + 10));
    expect(await coverage(store, 'tron/native/transfer', 'TRON')).toEqual([[FIRST, FIRST + 239]]);
    expect(await coverage(store, 'tron/trc20/transfer', 'TRON')).toEqual([[FIRST, FIRST + 239]]);
  });

  it('stores no Transfer log of a transaction that failed, whichever of the block and the transaction info says so', async () => {
    const block = FIRST + 7;
    const calls = chain.appendCalls(block, [
      { ret: 'REVERT', result: 'FAILED', receipt: 'REVERT' }, // a revert as the node reports it, with its logs kept
      { ret: 'OUT_OF_ENERGY', receipt: 'OUT_OF_ENERGY' },
      { ret: 'SUCCESS', result: 'FAILED' }, // the info alone says it failed
      { ret: 'REVERT' }, // the block alone says it reverted
      { ret: 'SUCCESS', receipt: 'SUCCESS' }, // the control: a transfer
    ]);
    await run({ to: FIRST + 49 });
    const stored = await engineSql(store).all<{ tx_hash: string; log_index: number }>(`SELECT tx_hash, log_index FROM tron_trc20_transfer WHERE block_number = ${block} ORDER BY log_index`);
    const ours = new Set(calls.map((c) => c.txid));
    // Only the control is stored; the failed calls' logs still count in log_index.
    expect(stored.filter((r) => ours.has(r.tx_hash))).toEqual([{ tx_hash: calls[4]!.txid, log_index: calls[4]!.logIndex }]);
    expect(calls[4]!.logIndex).toBe(calls[0]!.logIndex + 4);
    // The block's other transfers are untouched.
    expect(stored.filter((r) => !ours.has(r.tx_hash)).length).toBe(chain.tokens.filter((t) => t.block === block && t.decimals !== null).length);
  });

  it('asks the node for at most 100 blocks per getblockbylimitnext, and for logs only of blocks with contract calls', async () => {
    await run({ batchBlocks: 250, to: FIRST + 249 });
    const calls = server.requests.filter((r) => r.path === '/wallet/getblockbylimitnext').map((r) => r.body as { startNum: number; endNum: number });
    expect(calls.every((c) => c.endNum - c.startNum <= 100)).toBe(true);
    const infoCalls = server.requests.filter((r) => r.path === '/wallet/gettransactioninfobyblocknum').length;
    const withCalls = [...chain.blocks.values()].filter(
      (b) =>
        ((b.transactions ?? []) as { raw_data: { contract: { type: string }[] } }[]).some((t) => t.raw_data.contract[0]!.type === 'TriggerSmartContract') &&
        (b.block_header as { raw_data: { number: number } }).raw_data.number <= FIRST + 249,
    ).length;
    expect(infoCalls).toBe(withCalls);
  });

  it('keeps Transfer logs of any contract with anyContract, with the contract as token and the raw amount', async () => {
    await run({ anyContract: true });
    expect(await tokenRows(store)).toEqual(expectedTokens(FIRST, FIRST + 239, true));
    expect(await count(store, 'tron_trc20_transfer', `token = '${UNKNOWN_TOKEN}' AND token_decimals IS NULL`)).toBeGreaterThan(0);
  });

  it('is idempotent: rerunning skips, --force rewrites without duplicates', async () => {
    await run();
    const first = await snapshot(store);
    expect(await run()).toMatchObject({ done: 0, skipped: 240 });
    expect(await run({ force: true })).toMatchObject({ done: 240 });
    expect(await snapshot(store)).toEqual(first);
  });

  it('resumes after a crash between batches and ends identical to an uninterrupted run', async () => {
    const reference = await memoryStore();
    try {
      await run({}, reference);
      await expect(run({ hooks: crashAfter(2) })).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await coverage(store, 'tron/native/transfer', 'TRON')).toEqual([[FIRST, FIRST + 99]]);
      server.requests.length = 0;
      expect(await run()).toMatchObject({ done: 140, skipped: 100 });
      const asked = server.requests.filter((r) => r.path === '/wallet/getblockbylimitnext').map((r) => (r.body as { startNum: number }).startNum);
      expect(Math.min(...asked)).toBe(FIRST + 100); // nothing before the checkpoint is fetched again
      expect(await snapshot(store)).toEqual(await snapshot(reference));
    } finally {
      await reference.close();
    }
  });

  it('retries HTTP 500 and 429 from the node with exponential backoff', async () => {
    server.fail('/wallet/getblockbylimitnext', { status: 500, times: 2 });
    server.fail('/wallet/gettransactioninfobyblocknum', { status: 429, times: 1, retryAfter: '1' });
    const { policy, waits } = recordingRetry(4, 50);
    const summary = await run({ http: { retry: policy }, to: FIRST + 49, concurrency: 1 });
    expect(summary.done).toBe(50);
    // 50, 100, then Retry-After 1 s beats 200.
    expectWaitsUpTo(waits, [50, 100, 1000]);
    expect(waits[2]).toBeGreaterThan(200);
    expect(await nativeRows(store)).toEqual(expectedNative(FIRST, FIRST + 49));
    expect(await tokenRows(store)).toEqual(expectedTokens(FIRST, FIRST + 49));
  });

  it('flags ranges that were never ingested, with the exact missing blocks', async () => {
    await run({ to: FIRST + 99 });
    await assertChainCoverage(store, 'tron/native/transfer', 'TRON', { kind: 'blocks', start: FIRST, end: FIRST + 99 });
    const err = await assertChainCoverage(store, 'tron/trc20/transfer', 'TRON', { kind: 'blocks', start: FIRST + 50, end: FIRST + 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).extra).toMatchObject({ missing_blocks: [[FIRST + 100, FIRST + 150]] });
    // A time range maps to blocks through the stored block times.
    await assertChainCoverage(store, 'tron/native/transfer', 'TRON', { kind: 'time', since: START_MS + 30_000, until: START_MS + 90_000 });
  });

  it('rolls back a reorg to the common ancestor and re-ingests, leaving no orphaned rows', async () => {
    await run({ to: FIRST + 199 });
    chain.reorg(FIRST + 195, 777); // the last 5 stored blocks are replaced on the node
    await run({ from: FIRST + 200, to: FIRST + 239 });
    expect(await nativeRows(store)).toEqual(expectedNative(FIRST, FIRST + 239));
    expect(await tokenRows(store)).toEqual(expectedTokens(FIRST, FIRST + 239));
    const fresh = await memoryStore();
    try {
      await run({}, fresh);
      expect(await snapshot(store)).toEqual(await snapshot(fresh));
    } finally {
      await fresh.close();
    }
  });

  describe('a node whose gettransactioninfobyblocknum answer is short', () => {
    /** The first block from `from` on with a registry-token transfer in it. */
    const blockWithTransfer = (from: number) => chain.tokens.find((t) => t.block >= from && t.decimals !== null)!.block;
    /** Serves the honest answer, except for `block`, whose infos are cut to `keep` entries while `lies` lasts. */
    function lieAbout(block: number, keep: (infos: Record<string, unknown>[]) => Record<string, unknown>[], lies = { left: Number.POSITIVE_INFINITY }) {
      const honest = tronHandlers(chain).get('/wallet/gettransactioninfobyblocknum')!;
      server.handlers.set('/wallet/gettransactioninfobyblocknum', (body) => {
        const num = (body as { num: number }).num;
        if (num !== block || lies.left-- <= 0) return honest(body);
        const kept = keep(chain.infos.get(num) ?? []);
        return kept.length ? kept : {};
      });
    }

    for (const [what, keep] of [
      ['empty', () => []],
      ['missing one contract call', (infos: Record<string, unknown>[]) => infos.filter((_, i, all) => i !== all.findLastIndex((x) => x.log !== undefined))],
    ] as const) {
      it(`fails the batch (${what}) naming the block, leaves it uncovered, and an honest node then fills it`, async () => {
        const bad = blockWithTransfer(FIRST + 60);
        lieAbout(bad, keep);
        const err = await run().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toContain(`TRON block ${bad}`);
        const batchLo = FIRST + Math.floor((bad - FIRST) / 50) * 50;
        for (const dataset of ['tron/native/transfer', 'tron/trc20/transfer']) {
          // The batches before it commit; its own batch, fetched whole or not at all, does not.
          expect(await coverage(store, dataset, 'TRON')).toEqual(batchLo > FIRST ? [[FIRST, batchLo - 1]] : []);
        }
        expect(await count(store, 'tron_trc20_transfer', `block_number = ${bad}`)).toBe(0);
        // The block was asked for again before the run gave up.
        expect(server.requests.filter((r) => r.path === '/wallet/gettransactioninfobyblocknum' && (r.body as { num: number }).num === bad)).toHaveLength(1 + fast.retry.retries);

        for (const [p, h] of tronHandlers(chain)) server.handlers.set(p, h);
        expect(await run()).toMatchObject({ failed: [] });
        expect(await coverage(store, 'tron/trc20/transfer', 'TRON')).toEqual([[FIRST, FIRST + 239]]);
        expect(await tokenRows(store)).toEqual(expectedTokens(FIRST, FIRST + 239));
      });
    }

    it('asks again while the answer is short and stores the block whole once the node has every info', async () => {
      const bad = blockWithTransfer(FIRST);
      lieAbout(bad, () => [], { left: 2 });
      expect(await run({ to: FIRST + 49 })).toMatchObject({ done: 50, failed: [] });
      expect(await tokenRows(store)).toEqual(expectedTokens(FIRST, FIRST + 49));
    });
  });

  it('follows the head, ingesting only blocks that are `confirmations` deep', async () => {
    // The node's head moves on by 20 blocks each time it is asked.
    let asked = 0;
    server.handlers.set('/wallet/getnowblock', () => {
      asked++;
      return chain.blocks.get(Math.min(chain.head, FIRST + 100 + asked * 20));
    });
    const summary = await ingestTron({ store, api: server.url, from: FIRST, to: FIRST + 200, follow: true, confirmations: 19, pollMs: 1, batchBlocks: 50, http: fast });
    expect(summary.failed).toEqual([]);
    expect(await coverage(store, 'tron/native/transfer', 'TRON')).toEqual([[FIRST, FIRST + 200]]);
    expect(await nativeRows(store)).toEqual(expectedNative(FIRST, FIRST + 200));
  });
});
