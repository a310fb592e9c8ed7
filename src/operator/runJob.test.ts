/**
 * What a supervised job reports to /metrics: a Bitcoin job (the chain
 * skeleton Tron shares) run by runJob against the fixture bitcoind reports
 * each committed batch with its rows per dataset and its newest block, and
 * the head it follows, as EVM jobs do.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStore } from '../store/openStore.ts';
import { startSourceServer, type SourceServer } from '../../test/helpers/sourceServer.ts';
import { bitcoindHandler, BtcChain } from '../../test/ingest/fixtures/btc.ts';
import { runJob } from './runJob.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

const FIRST = 925_000;
let server: SourceServer;

beforeAll(async () => {
  server = await startSourceServer();
  const chain = new BtcChain(FIRST, Math.floor(Date.UTC(2025, 11, 1) / 1000));
  chain.mine(30, 5);
  server.handlers.set('/', bitcoindHandler(chain, 'chainq', 'pw'));
});
afterAll(async () => server.close());

it('reports every committed Bitcoin batch to the observer: rows per dataset and the newest block', async () => {
  const store = await createStore({ dataDir: null, threads: 2 });
  try {
    const batches: { network: string; dataset: string; rows: number; newest: number }[] = [];
    const rpc = `${server.url.replace('http://', 'http://chainq:pw@')}/`;
    await runJob(
      {
        store,
        dataDir: null,
        signal: new AbortController().signal,
        emit: () => undefined,
        observe: { batch: (b) => batches.push({ network: b.network, dataset: b.dataset, rows: b.rows, newest: b.newest }) },
      },
      { source: 'btc', rpc, from: FIRST, to: FIRST + 19, confirmations: 0, batch: 10, concurrency: 1 },
    );
    expect(batches.map((b) => [b.network, b.dataset, b.newest])).toEqual([
      ['BTC', 'btc/native/transfer', FIRST + 9],
      ['BTC', 'btc/native/transfer', FIRST + 19],
    ]);
    const [stored] = await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM btc_native_transfer`);
    expect(batches.reduce((n, b) => n + b.rows, 0)).toBe(Number(stored!.n));
    expect(Number(stored!.n)).toBeGreaterThan(20);
  } finally {
    await store.close();
  }
});

it('reports the head of a following Bitcoin job to the observer, at its start and once it caught up, as EVM jobs do', async () => {
  const store = await createStore({ dataDir: null, threads: 2 });
  try {
    const heads: { network: string; head: number; newest: number | null }[] = [];
    const rpc = `${server.url.replace('http://', 'http://chainq:pw@')}/`;
    // The fixture's head is FIRST + 29: with 5 confirmations, blocks up to FIRST + 24 are confirmed; the job ends at --to.
    await runJob(
      {
        store,
        dataDir: null,
        signal: new AbortController().signal,
        emit: () => undefined,
        observe: { head: (h) => heads.push({ network: h.network, head: Number(h.head), newest: h.newest === null ? null : Number(h.newest) }) },
      },
      { source: 'btc', rpc, from: FIRST, to: FIRST + 19, follow: true, poll: 0.01, confirmations: 5, batch: 10, concurrency: 1 },
    );
    expect(heads).toEqual([
      { network: 'BTC', head: FIRST + 29, newest: null },
      { network: 'BTC', head: FIRST + 29, newest: FIRST + 19 },
    ]);
  } finally {
    await store.close();
  }
});
