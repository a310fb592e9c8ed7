/**
 * `chainq verify --network BTC` on a ClickHouse store (chDB in process): the
 * adapter's rows read from the fake bitcoind are hashed by ClickHouse as the
 * stored ones are, so a clean ingest verifies clean and a block that lost
 * its rows is named.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src/ingest/evm/verifyEvm.ts';
import { coverageReport } from '../../src/query/coverageReport.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import { tamperWithRows } from '../helpers/tamperWithRows.ts';
import { runCli } from '../helpers/cli.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { bitcoindHandler, BtcChain } from '../ingest/fixtures/btc.ts';

const FIRST = 925_000;
const LAST = FIRST + 29;
const BTC = 'btc/native/transfer';

describe('chainq verify --network BTC (fake bitcoind, ClickHouse in process)', () => {
  let node: SourceServer;
  let rpc: string;
  let root: string;
  let store: string;

  const verify = () => runCli(['verify', '--network', 'BTC', '--rpc', rpc, '--store', store, '--json']);
  const report = (r: { stdout: string; stderr: string }): VerifyReport => {
    expect(r.stdout, r.stderr).not.toBe('');
    return JSON.parse(r.stdout) as VerifyReport;
  };
  const withStore = async <T>(fn: (ch: ClickHouseStore) => Promise<T>): Promise<T> => {
    const ch = await createClickHouseStore({ target: { engine: 'chdb', dir: path.join(root, 'chdb') }, database: 'chainq' });
    try {
      return await fn(ch);
    } finally {
      await ch.close();
    }
  };

  beforeAll(async () => {
    node = await startSourceServer();
    const chain = new BtcChain(FIRST, Math.floor(Date.UTC(2025, 11, 1) / 1000));
    chain.mine(40, 5);
    node.handlers.set('/', bitcoindHandler(chain, 'chainq', 'pw'));
    rpc = `${node.url.replace('http://', 'http://chainq:pw@')}/`;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ch-verify-btc-'));
    store = `chdb:${path.join(root, 'chdb')}`;
    const r = await runCli(['ingest', 'btc', '--rpc', rpc, '--from', String(FIRST), '--to', String(LAST), '--confirmations', '0', '--store', store, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
  }, 240_000);

  afterAll(async () => {
    await node?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('verifies a fresh ClickHouse ingest clean, then names the block whose rows were deleted and records it', { timeout: 300_000 }, async () => {
    const clean = await verify();
    expect(clean.code, clean.stderr).toBe(0);
    const ok = report(clean);
    expect(ok.mismatches).toEqual([]);
    expect(ok.datasets).toEqual([expect.objectContaining({ dataset: BTC, blocks: 30 })]);
    expect(ok.datasets[0]?.storedRows).toBeGreaterThan(30);

    const deleted = await withStore(async (ch) => {
      const rows = await ch.query<{ b: number | string }>(`SELECT DISTINCT block_number AS b FROM ${ch.table('btc_native_transfer')} ORDER BY b`);
      const block = Number(rows[5]?.b);
      await tamperWithRows(ch, { kind: 'delete', table: 'btc_native_transfer', network: 'BTC', block });
      return block;
    });
    const bad = await verify();
    expect(bad.code, bad.stderr).toBe(1);
    expect(report(bad).mismatches.map((m) => `${m.dataset}@${m.block}`)).toEqual([`${BTC}@${deleted}`]);

    const coverage = await withStore((ch) => coverageReport(ch, { network: 'BTC' }));
    const entry = coverage.find((e) => e.dataset === BTC);
    expect(entry?.last_verification).toMatchObject({ result: 'mismatch', mismatches: 1, blocks: 30 });
    expect(entry?.verified_ranges).toEqual([
      { from: FIRST, to: deleted - 1 },
      { from: deleted + 1, to: LAST },
    ]);
  });
});
