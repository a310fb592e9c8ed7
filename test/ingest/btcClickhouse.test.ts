/**
 * The chain skeleton (Bitcoin, and Tron with it) writing into ClickHouse
 * (chDB in process): against the fixture bitcoind, the API on chDB answers
 * what the API on DuckDB answers after a plain run, after a crash between
 * batches and a resume, and after a reorg rolled back to the common ancestor.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestBtc } from '../../src/ingest/btc/ingestBtc.ts';
import { createKey } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createClickHouseStore } from '../helpers/clickhouseStore.ts';
import type { Store } from '../../src/store/types.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { bitcoindHandler, BtcChain } from './fixtures/btc.ts';
import { crashAfter, memoryStore, SimulatedCrash } from './helpers.ts';

const FIRST = 925_000;
const START = Math.floor(Date.UTC(2025, 11, 1) / 1000);
const fast = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-btc-'));
let server: SourceServer;
let chain: BtcChain;
let rpc: string;
let databases = 0;

beforeAll(async () => {
  server = await startSourceServer();
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  chain = new BtcChain(FIRST, START);
  chain.mine(60, 5);
  server.handlers.set('/', bitcoindHandler(chain, 'chainq', 's3cr:et'));
  rpc = `${server.url.replace('http://', 'http://chainq:s3cr%3Aet@')}/`;
});

async function chdbStore(): Promise<Store> {
  const store = await createClickHouseStore({ target: { engine: 'chdb', dir }, database: `btc_${++databases}` });
  await loadSeed(store);
  return store;
}

async function duckStore(): Promise<Store> {
  const store = await memoryStore();
  await loadSeed(store);
  return store;
}

const run = (store: Store, over: Partial<Parameters<typeof ingestBtc>[0]> = {}) => ingestBtc({ store, rpc, from: FIRST, to: FIRST + 49, confirmations: 0, batchBlocks: 10, http: fast, ...over });

/** The API's answer over the ingested range (JSON, verbose), parsed. */
async function served(store: Store): Promise<unknown> {
  const app = await createApp({ store });
  try {
    const { key } = await createKey(store, { plan: 'unlimited' });
    const res = await app.inject({ method: 'GET', url: `/v1/btc/native/events/transfer?block_start=${FIRST}&block_end=${FIRST + 49}&verbose=true`, headers: { 'x-api-key': key } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  } finally {
    await app.close();
  }
}

describe('Bitcoin ingestion into ClickHouse (chDB)', () => {
  it('serves what ingestion into DuckDB serves', async () => {
    const [duck, ch] = [await duckStore(), await chdbStore()];
    try {
      await run(duck);
      expect(await run(ch)).toMatchObject({ done: 50 });
      const expected = (await served(duck)) as { events: unknown[] };
      expect(expected.events.length).toBeGreaterThan(50);
      expect(await served(ch)).toEqual(expected);
    } finally {
      await duck.close();
      await ch.close();
    }
  });

  it('resumes after a crash between batches, and rolls back a reorg, ending as an uninterrupted run', async () => {
    const ch = await chdbStore();
    const reference = await chdbStore();
    try {
      await expect(run(ch, { to: FIRST + 39, hooks: crashAfter(3) })).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await run(ch, { to: FIRST + 39 })).toMatchObject({ done: 10, skipped: 30 });
      chain.rewind(FIRST + 37); // blocks 37–59 are replaced by a competing branch
      chain.mine(23, 999);
      await run(ch, { from: FIRST + 40, to: FIRST + 49 });
      await run(reference);
      const [got, want] = [(await served(ch)) as { events: { block_number: number }[] }, (await served(reference)) as { events: { block_number: number }[] }];
      const blocksOf = (r: { events: { block_number: number }[] }) => [...new Set(r.events.map((e) => e.block_number))].join(',');
      expect(blocksOf(got)).toBe(blocksOf(want));
      expect(got).toEqual(want);
    } finally {
      await ch.close();
      await reference.close();
    }
  });
});
