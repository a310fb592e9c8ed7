/**
 * What a supervised job reports to /metrics: a Bitcoin job (the chain
 * skeleton Tron shares) run by runJob against the fixture bitcoind reports
 * each committed batch with its rows per dataset and its newest block, as
 * EVM jobs do.
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
