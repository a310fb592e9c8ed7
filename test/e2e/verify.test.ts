/**
 * `chainq verify` end to end against a real anvil, DuckDB store and server:
 * the scenario chain (every built-in EVM dataset) and a custom dataset are
 * ingested with the CLI, verified clean, then the store is made to lose one
 * row and change another; verification must name exactly those blocks and
 * datasets, exit non-zero, record it, and show it in `GET /v1/coverage`,
 * `chainq status` and `/metrics`, also when it runs inside a server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry } from '../../src/catalog/coverage.ts';
import type { VerifyReport } from '../../src/ingest/evm/verifyEvm.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { tamperWithRows } from '../helpers/tamperWithRows.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { operatorMetrics } from '../helpers/operatorMetrics.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { buildEvmScenario, writeScenarioConfig, type EvmScenario } from './evmScenario.ts';
import { engineSql } from '../helpers/engineSql.ts';

const ERC20 = 'evm/erc20/transfer';
const DEPOSITED = 'evm/custom/vault/deposited';

describe('chainq verify (anvil, DuckDB)', () => {
  let anvil: Anvil;
  let chain: Chain;
  let s: EvmScenario;
  let dir: string;
  let cfg: { protocols: string; tokensCsv: string };
  let to: number;
  let server: Server | undefined;
  /** The block whose ERC-20 transfers the store lost. */
  let deleted: { block: number; logIndex: number };

  const verify = (...extra: string[]) => runCli(['verify', '--network', 'ETH', '--rpc', anvil.url, '--data', dir, '--protocols', cfg.protocols, ...extra]);
  const report = (r: { stdout: string; stderr: string }): VerifyReport => {
    expect(r.stdout, r.stderr).not.toBe('');
    return JSON.parse(r.stdout) as VerifyReport;
  };
  const withStore = async <T>(fn: (store: Store) => Promise<T>): Promise<T> => {
    const store = await createStore({ dataDir: dir, threads: 1 });
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  };
  /** A block holding at least one row of `table`, and the log index of its first row. */
  const rowOf = (table: string, skip = 0) =>
    withStore(async (store) => {
      const rows = await engineSql(store).all<{ b: bigint; li: bigint }>(`SELECT block_number AS b, log_index AS li FROM ${table} ORDER BY block_number, log_index`);
      const r = rows[skip]!;
      return { block: Number(r.b), logIndex: Number(r.li) };
    });

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    // Blocks 12 s apart, so that a time range names blocks.
    await chain.rpc('anvil_setBlockTimestampInterval', [12]);
    s = await buildEvmScenario(chain);
    const vault = await chain.deploy('Vault');
    const [alice, bob] = chain.accounts as [Hex, Hex];
    await chain.send('Vault', vault, 'deposit', [alice, 10n ** 30n, -5n, true, `0x${'ab'.repeat(32)}`]);
    await chain.send('Vault', vault, 'deposit', [bob, 7n, 9n, false, `0x${'00'.repeat(31)}01`]);
    to = await chain.blockNumber();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-verify-'));
    cfg = writeScenarioConfig(dir, s);
    const custom = path.join(dir, 'vault.json');
    fs.writeFileSync(custom, JSON.stringify({ name: 'vault', abi: chain.artifacts.Vault!.abi as Abi, events: ['Deposited'], networks: { eth: { addresses: [vault], from_block: s.from } } }));
    expect((await runCli(['tokens', 'import', cfg.tokensCsv, '--data', dir])).code).toBe(0);
    const common = ['ingest', 'evm', '--network', 'ETH', '--rpc', anvil.url, '--from', String(s.from), '--to', String(to), '--confirmations', '0', '--data', dir, '--log'];
    for (const args of [
      [...common, '--protocols', cfg.protocols],
      [...common, '--custom', custom],
    ]) {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
    }
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds a freshly ingested range identical to the node, for every built-in and custom dataset, and exits 0', async () => {
    const r = await verify('--block-start', String(s.from), '--block-end', String(to), '--json');
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.result).toBe('ok');
    expect(rep.mismatches).toEqual([]);
    expect(rep.ranges).toEqual([{ lo: s.from, hi: to }]);
    const names = rep.datasets.map((d) => d.dataset);
    for (const d of [ERC20, 'evm/native/transfer', 'evm/dex_v3/swap', 'evm/lending_v3/borrow', 'evm/staking/deposit', DEPOSITED]) expect(names).toContain(d);
    for (const d of rep.datasets) expect(d.storedRows, d.dataset).toBe(d.nodeRows);
    expect(rep.datasets.find((d) => d.dataset === ERC20)!.storedRows).toBeGreaterThan(10);
    expect(rep.datasets.find((d) => d.dataset === DEPOSITED)!.storedRows).toBe(2);
    expect(rep.node).toBe(new URL(anvil.url).origin);
  });

  it('names exactly the block and dataset of a deleted row and of an altered one, and exits 1', async () => {
    deleted = await rowOf('evm_erc20_transfer', 3);
    const altered = await rowOf('evm_custom_vault__deposited', 1);
    await withStore(async (store) => {
      await tamperWithRows(store, { kind: 'delete', table: 'evm_erc20_transfer', network: 'ETH', block: deleted.block });
      await tamperWithRows(store, {
        kind: 'set',
        table: 'evm_custom_vault__deposited',
        network: 'ETH',
        block: altered.block,
        logIndex: altered.logIndex,
        column: 'tx_hash',
        value: `0x${'12'.repeat(32)}`,
      });
    });
    const r = await verify('--block-start', String(s.from), '--block-end', String(to), '--json');
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r);
    expect(rep.result).toBe('mismatch');
    expect(rep.mismatches.map((m) => [m.dataset, m.block]).sort()).toEqual(
      [
        [ERC20, deleted.block],
        [DEPOSITED, altered.block],
      ].sort(),
    );
    const lost = rep.mismatches.find((m) => m.dataset === ERC20)!;
    expect(lost.stored.rows).toBeLessThan(lost.node.rows);
    const changed = rep.mismatches.find((m) => m.dataset === DEPOSITED)!;
    expect(changed.stored.rows).toBe(changed.node.rows);
    expect(changed.stored.hash).not.toBe(changed.node.hash);

    const human = await verify('--block-start', String(s.from), '--block-end', String(to));
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^MISMATCH: ETH against http:\/\/127\.0\.0\.1:\d+, /);
    expect(human.stdout).toContain(`block ${deleted.block}  ${ERC20}  `);
    expect(human.stdout).toContain(`block ${altered.block}  ${DEPOSITED}  1 row(s) on both sides, contents differ`);
  });

  it('shows the verified ranges and the last verification in GET /v1/coverage and chainq status', async () => {
    server = await startServer(dir);
    const res = await server.get('/v1/coverage?network=ETH');
    expect(res.status).toBe(200);
    const entries = res.body.coverage as CoverageEntry[];
    const erc20 = entries.find((e) => e.dataset === ERC20)!;
    expect(erc20.last_verification).toMatchObject({ result: 'mismatch', mismatches: 1, sampled: false, node: new URL(anvil.url).origin, blocks: to - s.from + 1 });
    // Every block but the one that differs was last verified equal to the node.
    expect(erc20.verified_ranges).toEqual([
      { from: s.from, to: deleted.block - 1 },
      { from: deleted.block + 1, to },
    ]);
    const swap = entries.find((e) => e.dataset === 'evm/dex_v3/swap')!;
    expect(swap.last_verification?.result).toBe('ok');
    expect(swap.verified_ranges).toEqual([{ from: s.from, to }]);

    const st = await runCli(['status', '--data', dir, '--json']);
    expect(st.code, st.stderr).toBe(0);
    const status = JSON.parse(st.stdout) as { verifications: { dataset: string; network: string; result: string; mismatches: number }[] };
    expect(status.verifications.find((v) => v.dataset === ERC20)).toMatchObject({ network: 'ETH', result: 'mismatch', mismatches: 1 });
    const text = await runCli(['status', '--data', dir]);
    expect(text.stdout).toMatch(new RegExp(`${ERC20.replaceAll('/', '\\/')}\\s+ETH\\s+.*mismatch \\(1 block: ${deleted.block}\\)`));
  });

  it('runs inside a running server through its operator channel, and counts in /metrics', async () => {
    expect(server).toBeDefined();
    const r = await verify('--block-start', String(s.from), '--block-end', String(to), '--json');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/running in the server \(pid \d+\) as job/);
    expect(report(r).mismatches).toHaveLength(2);
    const metrics = await operatorMetrics(dir);
    expect(metrics).toMatch(/chainq_verifications_total\{network="ETH",dataset="evm\/erc20\/transfer",result="mismatch"\} 1/);
    expect(metrics).toMatch(/chainq_verify_mismatched_blocks_total\{network="ETH",dataset="evm\/erc20\/transfer"\} 1/);
    expect(metrics).toMatch(/chainq_verifications_total\{network="ETH",dataset="evm\/dex_v3\/swap",result="ok"\} 1/);
  });

  it('--sample N compares N covered blocks drawn at random, and a time range is read as blocks', async () => {
    const r = await verify('--sample', '3', '--json');
    expect([0, 1], r.stderr).toContain(r.code);
    const rep = report(r);
    expect(rep.sampled).toBe(true);
    expect(rep.blocks).toBe(3);
    // Covered blocks: the custom dataset covers every block before its first block at once (it holds no event there).
    for (const i of rep.ranges) expect(i.lo >= 0 && i.hi <= to).toBe(true);
    expect(rep.datasets.find((d) => d.dataset === DEPOSITED)!.blocks).toBe(3);
    for (const m of rep.mismatches) expect(rep.ranges.some((i) => i.lo <= m.block && m.block <= i.hi)).toBe(true);

    // A time range covers the stored blocks from the first at or after --since to the last before --until.
    const times = new Map<number, number>();
    for (let b = s.from; b <= to; b++) times.set(b, Number(BigInt((await chain.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [`0x${b.toString(16)}`, false])).timestamp)));
    const since = times.get(s.from + 2)!;
    const until = times.get(to)!;
    const first = Math.max(...[...times].filter(([, t]) => t < since).map(([b]) => b)) + 1;
    const last = Math.min(...[...times].filter(([, t]) => t >= until).map(([b]) => b)) - 1;
    const byTime = await verify('--since', String(since), '--until', String(until), '--json');
    expect([0, 1], byTime.stderr).toContain(byTime.code);
    expect(report(byTime).ranges).toEqual([{ lo: first, hi: last }]);

    const tron = await runCli(['verify', '--network', 'TRON', '--rpc', anvil.url, '--data', dir]);
    expect(tron.code).toBe(1);
    expect(tron.stderr).toContain('--network TRON takes its node with --api');

    const bad = await verify('--block-start', '5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--block-start and --block-end go together');
  });

  it('a supervised job of a --config file verifies a sample periodically, each run recorded and counted', async () => {
    await server?.stop();
    const config = path.join(dir, 'chainq.json');
    fs.writeFileSync(config, JSON.stringify({ jobs: [{ name: 'eth-check', source: 'verify', network: 'ETH', rpc: anvil.url, protocols: cfg.protocols, sample: 2, every: 0.5 }] }));
    server = await startServer(dir, ['--config', config], server?.key);
    const runs = async () => Number(/chainq_verifications_total\{network="ETH",dataset="evm\/erc20\/transfer",result="(?:ok|mismatch)"\} (\d+)/.exec(await operatorMetrics(dir))?.[1] ?? 0);
    const deadline = Date.now() + 90_000;
    while ((await runs()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const sampled = await runs();
    expect(sampled).toBeGreaterThanOrEqual(2);
    const jobs = await runCli(['jobs', 'list', '--data', dir, '--json']);
    expect(JSON.parse(jobs.stdout)).toEqual([expect.objectContaining({ name: 'eth-check', label: 'verify ETH (periodic)', state: 'running', supervised: true })]);
    const res = await server.get('/v1/coverage?protocol=erc20&network=ETH');
    const [entry] = res.body.coverage as CoverageEntry[];
    // Two blocks drawn from every covered block of the network (ERC-20 covers fewer than the custom dataset does).
    expect(entry!.last_verification).toMatchObject({ sampled: true });
    expect(entry!.last_verification!.blocks).toBeLessThanOrEqual(2);
  });
});
