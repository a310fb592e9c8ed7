/**
 * `chainq verify` on Tron and Bitcoin, end to end: each chain is ingested with
 * the CLI from the project's fake node, verified clean against it, then the
 * store loses rows of one block and has one row changed in another;
 * verification must name exactly those blocks and datasets, exit 1, and show
 * in `GET /v1/coverage`, also when it runs inside a server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry } from '../../src/catalog/coverage.ts';
import type { VerifyReport } from '../../src/ingest/evm/verifyEvm.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { tamperWithRows } from '../helpers/tamperWithRows.ts';
import { runCli } from '../helpers/cli.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { bitcoindHandler, BtcChain } from '../ingest/fixtures/btc.ts';
import { TronChain, tronHandlers } from '../ingest/fixtures/tron.ts';
import { engineSql } from '../helpers/engineSql.ts';

const report = (r: { stdout: string; stderr: string }): VerifyReport => {
  expect(r.stdout, r.stderr).not.toBe('');
  return JSON.parse(r.stdout) as VerifyReport;
};

async function withStore<T>(dir: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await createStore({ dataDir: dir, threads: 1 });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The distinct blocks holding rows of `table`, in order. */
const blocksOf = (dir: string, table: string) =>
  withStore(dir, async (store) => (await engineSql(store).all<{ b: bigint }>(`SELECT DISTINCT block_number AS b FROM ${table} ORDER BY b`)).map((r) => Number(r.b)));

describe('chainq verify --network TRON (fake Tron node, DuckDB)', () => {
  const FIRST = 78_450_000;
  const LAST = FIRST + 119;
  const NATIVE = 'tron/native/transfer';
  const TRC20 = 'tron/trc20/transfer';
  let node: SourceServer;
  let dir: string;
  let server: Server | undefined;
  let deleted: number;
  let altered: number;
  const verify = (...extra: string[]) => runCli(['verify', '--network', 'TRON', '--api', node.url, '--data', dir, ...extra]);

  beforeAll(async () => {
    node = await startSourceServer();
    const chain = new TronChain(FIRST, Date.UTC(2025, 11, 1));
    chain.grow(140, 7);
    for (const [p, h] of tronHandlers(chain)) node.handlers.set(p, h);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-verify-tron-'));
    const r = await runCli(['ingest', 'tron', '--api', node.url, '--from', String(FIRST), '--to', String(LAST), '--confirmations', '0', '--data', dir, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await node?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds freshly ingested native and TRC-20 transfers identical to the node, and exits 0', async () => {
    const r = await verify('--json');
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep).toMatchObject({ network: 'TRON', result: 'ok', sampled: false, ranges: [{ lo: FIRST, hi: LAST }], blocks: 120, mismatches: [], skipped: [] });
    expect(rep.datasets.map((d) => d.dataset).sort()).toEqual([NATIVE, TRC20]);
    for (const d of rep.datasets) {
      expect(d.storedRows, d.dataset).toBeGreaterThan(10);
      expect(d.storedRows, d.dataset).toBe(d.nodeRows);
      expect(d.blocks, d.dataset).toBe(120);
    }
    expect(rep.node).toBe(new URL(node.url).origin);
  });

  it('reads a time range as the stored blocks from the first at or after --since to the last before --until', async () => {
    // The fake chain's blocks are 3 s apart from its start.
    const start = Date.UTC(2025, 11, 1) / 1000;
    const r = await verify('--since', String(start + 30), '--until', String(start + 60), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(report(r)).toMatchObject({ ranges: [{ lo: FIRST + 10, hi: FIRST + 19 }], blocks: 10, result: 'ok' });
  });

  it('names exactly the block and dataset of deleted rows and of an altered one, and exits 1', async () => {
    deleted = (await blocksOf(dir, 'tron_native_transfer'))[3] ?? -1;
    const trc20 = await blocksOf(dir, 'tron_trc20_transfer');
    altered = trc20.find((b) => b > deleted + 5) ?? -1;
    const logIndex = await withStore(dir, async (store) => {
      const [row] = await engineSql(store).all<{ li: number }>(`SELECT log_index AS li FROM tron_trc20_transfer WHERE block_number = $b ORDER BY log_index LIMIT 1`, { b: altered });
      return Number(row?.li);
    });
    await withStore(dir, async (store) => {
      await tamperWithRows(store, { kind: 'delete', table: 'tron_native_transfer', network: 'TRON', block: deleted });
      await tamperWithRows(store, { kind: 'set', table: 'tron_trc20_transfer', network: 'TRON', block: altered, logIndex, column: 'receiver', value: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' });
    });
    const r = await verify('--block-start', String(FIRST), '--block-end', String(LAST), '--json');
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r);
    expect(rep.result).toBe('mismatch');
    expect(rep.mismatches.map((m) => [m.dataset, m.block])).toEqual([
      [NATIVE, deleted],
      [TRC20, altered],
    ]);
    const [lost, changed] = rep.mismatches;
    expect(lost?.stored).toEqual({ rows: 0, hash: null });
    expect(lost?.node.rows).toBeGreaterThan(0);
    expect(changed?.stored.rows).toBe(changed?.node.rows);
    expect(changed?.stored.hash).not.toBe(changed?.node.hash);

    const human = await verify();
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^MISMATCH: TRON against http:\/\/127\.0\.0\.1:\d+, 120 block\(s\)/);
    expect(human.stdout).toContain(`block ${deleted}  ${NATIVE}  0 row(s) stored`);
    expect(human.stdout).toContain(`block ${altered}  ${TRC20}  ${changed?.stored.rows} row(s) on both sides, contents differ`);
  });

  it('shows the verification in GET /v1/coverage and chainq status, and runs inside a running server', async () => {
    server = await startServer(dir);
    const res = await server.get('/v1/coverage?network=TRON');
    expect(res.status).toBe(200);
    const entries = res.body.coverage as CoverageEntry[];
    const native = entries.find((e) => e.dataset === NATIVE);
    expect(native?.last_verification).toMatchObject({ result: 'mismatch', mismatches: 1, sampled: false, node: new URL(node.url).origin, blocks: 120 });
    expect(native?.verified_ranges).toEqual([
      { from: FIRST, to: deleted - 1 },
      { from: deleted + 1, to: LAST },
    ]);
    const st = await runCli(['status', '--data', dir, '--json']);
    const status = JSON.parse(st.stdout) as { verifications: { dataset: string; network: string; result: string; mismatches: number }[] };
    expect(status.verifications.find((v) => v.dataset === TRC20)).toMatchObject({ network: 'TRON', result: 'mismatch', mismatches: 1 });

    const inside = await verify('--sample', '5', '--json');
    expect(inside.stderr).toMatch(/running in the server \(pid \d+\) as job/);
    const rep = report(inside);
    expect(rep).toMatchObject({ sampled: true, blocks: 5 });
    for (const m of rep.mismatches) expect([deleted, altered]).toContain(m.block);
    expect(inside.code).toBe(rep.mismatches.length ? 1 : 0);
  });

  it('takes the Tron node with --api, not --rpc, and names the networks it verifies when given another', async () => {
    const r = await runCli(['verify', '--network', 'TRON', '--rpc', node.url, '--data', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--network TRON takes its node with --api');
    const unknown = await runCli(['verify', '--network', 'SOL', '--rpc', node.url, '--data', dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('SOL is not a network chainq verify knows: it compares EVM networks, TRON and BTC');
  });
});

describe('chainq verify --network BTC (fake bitcoind, DuckDB)', () => {
  const FIRST = 925_000;
  const LAST = FIRST + 39;
  const BTC = 'btc/native/transfer';
  let node: SourceServer;
  let rpc: string;
  let dir: string;
  let server: Server | undefined;
  const verify = (...extra: string[]) => runCli(['verify', '--network', 'BTC', '--rpc', rpc, '--data', dir, ...extra]);

  beforeAll(async () => {
    node = await startSourceServer();
    const chain = new BtcChain(FIRST, Math.floor(Date.UTC(2025, 11, 1) / 1000));
    chain.mine(50, 5);
    node.handlers.set('/', bitcoindHandler(chain, 'chainq', 's3cr:et'));
    rpc = `${node.url.replace('http://', 'http://chainq:s3cr%3Aet@')}/`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-verify-btc-'));
    const r = await runCli(['ingest', 'btc', '--rpc', rpc, '--from', String(FIRST), '--to', String(LAST), '--confirmations', '0', '--data', dir, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await node?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds freshly ingested transfers identical to the node, never printing its credentials, and exits 0', async () => {
    const r = await verify('--json');
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep).toMatchObject({ network: 'BTC', result: 'ok', ranges: [{ lo: FIRST, hi: LAST }], blocks: 40, mismatches: [] });
    expect(rep.datasets).toEqual([expect.objectContaining({ dataset: BTC, blocks: 40, mismatches: 0 })]);
    expect(rep.datasets[0]?.storedRows).toBeGreaterThan(40);
    expect(rep.datasets[0]?.storedRows).toBe(rep.datasets[0]?.nodeRows);
    expect(r.stdout).not.toContain('s3cr');
    expect(rep.node).toBe(new URL(node.url).origin);
  });

  it('names the block whose rows the store lost, exits 1, records it for GET /v1/coverage, and runs inside a server', async () => {
    const deleted = (await blocksOf(dir, 'btc_native_transfer'))[7] ?? -1;
    await withStore(dir, (store) => tamperWithRows(store, { kind: 'delete', table: 'btc_native_transfer', network: 'BTC', block: deleted }));
    const r = await verify('--block-start', String(FIRST), '--block-end', String(LAST), '--json');
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r);
    expect(rep.mismatches.map((m) => [m.dataset, m.block])).toEqual([[BTC, deleted]]);
    expect(rep.mismatches[0]?.stored.rows).toBe(0);

    server = await startServer(dir);
    const res = await server.get('/v1/coverage?network=BTC');
    expect(res.status).toBe(200);
    const entry = (res.body.coverage as CoverageEntry[]).find((e) => e.dataset === BTC);
    expect(entry?.last_verification).toMatchObject({ result: 'mismatch', mismatches: 1, blocks: 40 });
    expect(entry?.verified_ranges).toEqual([
      { from: FIRST, to: deleted - 1 },
      { from: deleted + 1, to: LAST },
    ]);

    const inside = await verify('--block-start', String(deleted - 1), '--block-end', String(deleted + 1), '--json');
    expect(inside.code, inside.stderr).toBe(1);
    expect(inside.stderr).toMatch(/running in the server \(pid \d+\) as job/);
    expect(report(inside).mismatches.map((m) => m.block)).toEqual([deleted]);
  });
});
