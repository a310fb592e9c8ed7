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
import type { Store } from '../store/types.ts';
import { runJob, type JobObserver } from './runJob.ts';
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

/** Runs a Bitcoin job from FIRST in batches of 10 on `store` against the fixture node, reporting to `observe`. */
async function runBtcJob(store: Store, observe: JobObserver, spec: { readonly to: number; readonly confirmations: number; readonly follow?: boolean; readonly poll?: number }): Promise<void> {
  const rpc = `${server.url.replace('http://', 'http://chainq:pw@')}/`;
  await runJob({ store, dataDir: null, signal: new AbortController().signal, emit: () => undefined, observe }, { source: 'btc', rpc, from: FIRST, batch: 10, concurrency: 1, ...spec });
}

it('reports every committed Bitcoin batch to the observer: rows per dataset and the newest block', async () => {
  const store = await createStore({ dataDir: null, threads: 2 });
  try {
    const batches: { network: string; dataset: string; rows: number; newest: number }[] = [];
    await runBtcJob(store, { batch: (b) => batches.push({ network: b.network, dataset: b.dataset, rows: b.rows, newest: b.newest }) }, { to: FIRST + 19, confirmations: 0 });
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
    // The fixture's head is FIRST + 29: with 5 confirmations, blocks up to FIRST + 24 are confirmed; the job ends at --to.
    await runBtcJob(
      store,
      { head: (h) => heads.push({ network: h.network, head: Number(h.head), newest: h.newest === null ? null : Number(h.newest) }) },
      { to: FIRST + 19, confirmations: 5, follow: true, poll: 0.01 },
    );
    expect(heads).toEqual([
      { network: 'BTC', head: FIRST + 29, newest: null },
      { network: 'BTC', head: FIRST + 29, newest: FIRST + 19 },
    ]);
  } finally {
    await store.close();
  }
});
