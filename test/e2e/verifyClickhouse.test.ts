/**
 * `chainq verify` on a ClickHouse store (chDB in process): the node's rows are
 * loaded into a temporary ClickHouse table and hashed by ClickHouse, as the
 * stored ones are, so a clean ingest verifies clean and a lost or altered row
 * is named by block and dataset.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEndpoints } from '../../src/catalog/index.ts';
import type { VerifyReport } from '../../src/ingest/evm/verifyEvm.ts';
import { coverageReport } from '../../src/query/coverageReport.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import { tamperWithRows } from '../helpers/tamperWithRows.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { buildEvmScenario, writeScenarioConfig, type EvmScenario } from './evmScenario.ts';

const tableOf = (id: string) => chainEndpoints.find((e) => e.id === id)!.table.name;
const ERC20 = 'evm/erc20/transfer';
const SWAP = 'evm/dex_v3/swap';

describe('chainq verify (anvil, ClickHouse in process)', () => {
  let anvil: Anvil;
  let s: EvmScenario;
  let root: string;
  let store: string;
  let protocols: string;

  const verify = (...extra: string[]) =>
    runCli(['verify', '--network', 'ETH', '--rpc', anvil.url, '--store', store, '--protocols', protocols, '--block-start', String(s.from), '--block-end', String(s.to), '--json', ...extra]);
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
    anvil = await startAnvil({ chainId: 1 });
    s = await buildEvmScenario(await connectChain(anvil.url));
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ch-verify-'));
    store = `chdb:${path.join(root, 'chdb')}`;
    protocols = writeScenarioConfig(root, s).protocols;
    const r = await runCli(ingestEvmArgs({ rpc: anvil.url, from: s.from, to: s.to, store, protocols }));
    expect(r.code, r.stderr).toBe(0);
  }, 240_000);

  afterAll(async () => {
    await anvil?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('verifies a fresh ClickHouse ingest clean, then names a deleted and an altered row by block and dataset', { timeout: 300_000 }, async () => {
    const clean = await verify();
    expect(clean.code, clean.stderr).toBe(0);
    const ok = report(clean);
    expect(ok.mismatches).toEqual([]);
    expect(ok.datasets.find((d) => d.dataset === ERC20)!.storedRows).toBeGreaterThan(10);
    expect(ok.datasets.find((d) => d.dataset === SWAP)!.storedRows).toBeGreaterThan(0);

    const { deleted, altered } = await withStore(async (ch) => {
      const blocks = async (table: string) =>
        (await ch.query<{ b: number; li: number }>(`SELECT block_number AS b, log_index AS li FROM ${ch.table(table)} ORDER BY b, li`)).map((r) => ({ block: Number(r.b), logIndex: Number(r.li) }));
      const deleted = (await blocks(tableOf(ERC20)))[2]!;
      const altered = (await blocks(tableOf(SWAP)))[0]!;
      await tamperWithRows(ch, { kind: 'delete', table: tableOf(ERC20), network: 'ETH', block: deleted.block });
      await tamperWithRows(ch, { kind: 'set', table: tableOf(SWAP), network: 'ETH', block: altered.block, logIndex: altered.logIndex, column: 'tx_hash', value: `0x${'34'.repeat(32)}` });
      return { deleted, altered };
    });
    const bad = await verify();
    expect(bad.code, bad.stderr).toBe(1);
    expect(
      report(bad)
        .mismatches.map((m) => `${m.dataset}@${m.block}`)
        .sort(),
    ).toEqual([`${ERC20}@${deleted.block}`, `${SWAP}@${altered.block}`].sort());

    // Both runs are recorded in ClickHouse, and coverage reads the latest.
    const coverage = await withStore((ch) => coverageReport(ch, { network: 'ETH' }));
    const erc20 = coverage.find((e) => e.dataset === ERC20)!;
    expect(erc20.last_verification).toMatchObject({ result: 'mismatch', mismatches: 1, blocks: s.to - s.from + 1 });
    expect(erc20.verified_ranges).toEqual([
      { from: s.from, to: deleted.block - 1 },
      { from: deleted.block + 1, to: s.to },
    ]);
  });
});
