/**
 * Reorgs under `chainq ingest evm --follow`: anvil's snapshot and revert
 * replace the chain's last blocks with different ones while the follower
 * runs. The follower must notice, drop what it stored of the replaced blocks
 * in every dataset, and ingest the new ones, so that the store ends equal to
 * the node's chain; and a reorg deeper than --reorg-window must stop it with
 * a clear error rather than leave a mixed chain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { createStore } from '../../src/store/openStore.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { spawnCli, type RunningCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { eventAbi, lower, nodeTruth } from './nodeTruth.ts';
import { engineSql } from '../helpers/engineSql.ts';

describe('ingest evm --follow across reorgs', () => {
  const dirs: string[] = [];
  let anvil: Anvil | undefined;
  let follower: RunningCli | undefined;

  afterEach(async () => {
    if (follower && follower.child.exitCode === null) follower.child.kill('SIGKILL');
    await follower?.done;
    follower = undefined;
    await anvil?.stop();
    anvil = undefined;
  });
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function setup(): Promise<{ chain: Chain; token: Hex; users: Hex[]; dir: string }> {
    anvil = await startAnvil({ chainId: 1 });
    const chain = await connectChain(anvil.url);
    const [, alice, bob, carol, dave] = chain.accounts as [Hex, Hex, Hex, Hex, Hex];
    const token = await chain.deploy('TestToken', ['Eighteen', 'EIGHT', 18]);
    await chain.send('TestToken', token, 'mint', [alice, 10n ** 24n]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-reorg-'));
    dirs.push(dir);
    return { chain, token, users: [alice, bob, carol, dave], dir };
  }

  const follow = (dir: string, extra: string[] = []) => spawnCli(ingestEvmArgs({ rpc: anvil!.url, from: 1, follow: { pollInterval: 0.1 }, data: dir }, ...extra));

  it('replaced blocks are rolled back in every dataset and the new chain ingested: the store ends equal to the node', async () => {
    const {
      chain,
      token,
      users: [alice, bob, carol],
      dir,
    } = await setup();
    for (let i = 1; i <= 3; i++) await chain.send('TestToken', token, 'transfer', [bob, BigInt(i)], { from: alice! });
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    const forkPoint = await chain.blockNumber();
    // Chain A: four more blocks, paying bob (tokens and ETH).
    for (let i = 1; i <= 2; i++) await chain.send('TestToken', token, 'transfer', [bob, BigInt(100 + i)], { from: alice! });
    for (let i = 1; i <= 2; i++) await chain.pay(alice!, bob!, BigInt(i) * 10n ** 16n);
    const tipA = await chain.blockNumber();

    follower = follow(dir);
    await follower.waitFor((l) => l.event === 'caught_up' && Number(l.block) >= tipA);

    // Chain B: back to the fork point, then six different blocks paying carol.
    expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
    for (let i = 1; i <= 3; i++) await chain.send('TestToken', token, 'transfer', [carol, BigInt(200 + i)], { from: alice! });
    for (let i = 1; i <= 3; i++) await chain.pay(alice!, carol!, BigInt(i) * 10n ** 15n);
    const tipB = await chain.blockNumber();
    expect(tipB).toBeGreaterThan(tipA);

    const reorg = await follower.waitFor((l) => l.event === 'reorg');
    expect(Number(reorg.ancestor)).toBe(forkPoint);
    await follower.waitFor((l) => l.event === 'caught_up' && Number(l.block) >= tipB);
    follower.child.kill('SIGINT'); // a graceful stop: the batch in hand is finished, then the store is closed
    const r = await follower.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toMatch(/^stopped:/);

    const truth = nodeTruth(chain, 1, tipB);
    const store = await createStore({ dataDir: dir, readOnly: true });
    try {
      const transfers = await truth.logs(eventAbi(chain, 'TestToken', 'Transfer'), token);
      const stored = await engineSql(store).all<{ block_number: bigint; log_index: number; receiver: string; amount_raw: bigint; tx_hash: string }>(
        `SELECT block_number, log_index, receiver, amount_raw, tx_hash FROM evm_erc20_transfer ORDER BY block_number, log_index`,
      );
      expect(stored.map((s) => [Number(s.block_number), s.log_index, s.receiver, s.amount_raw, s.tx_hash])).toEqual(
        transfers.map((d) => [d.block, d.logIndex, lower(d.args.to), d.args.value, d.log.transactionHash]),
      );
      expect(stored.some((s) => s.amount_raw === 101n || s.amount_raw === 102n)).toBe(false); // chain A's transfers are gone

      const native = await truth.nativeTransfers();
      const storedNative = await engineSql(store).all<{ block_number: bigint; receiver: string; amount_raw: bigint }>(
        `SELECT block_number, receiver, amount_raw FROM evm_native_transfer ORDER BY block_number, tx_index, trace_index`,
      );
      expect(storedNative.map((s) => [Number(s.block_number), s.receiver, s.amount_raw])).toEqual(native.map((t) => [t.block, t.to, t.value]));
      expect(storedNative.some((s) => s.receiver === bob)).toBe(false);

      const blocks = await engineSql(store).all<{ number: bigint; hash: string }>(`SELECT number, hash FROM blocks ORDER BY number`);
      expect(blocks.length).toBe(tipB);
      for (const b of blocks) {
        const node = await chain.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${Number(b.number).toString(16)}`, false]);
        expect(b.hash).toBe(node.hash);
      }
      const coverage = await engineSql(store).all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = 'evm/native/transfer'`);
      expect(coverage.map((c) => [Number(c.lo), Number(c.hi)])).toEqual([[1, tipB]]);
    } finally {
      await store.close();
    }
  });

  it('a reorg deeper than --reorg-window stops ingestion with an error that says so', async () => {
    const {
      chain,
      token,
      users: [alice, bob, carol],
      dir,
    } = await setup();
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    for (let i = 1; i <= 5; i++) await chain.send('TestToken', token, 'transfer', [bob, BigInt(i)], { from: alice! });
    const tipA = await chain.blockNumber();
    follower = follow(dir, ['--reorg-window', '2']);
    await follower.waitFor((l) => l.event === 'caught_up' && Number(l.block) >= tipA);
    await chain.rpc('evm_revert', [snapshot]);
    for (let i = 1; i <= 7; i++) await chain.send('TestToken', token, 'transfer', [carol, BigInt(i)], { from: alice! });
    const r = await follower.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/reorg deeper than 2 blocks on ETH/);
    // Nothing of the new chain was mixed into what the store held.
    const store = await createStore({ dataDir: dir, readOnly: true });
    try {
      const rows = await engineSql(store).all<{ receiver: string }>(`SELECT DISTINCT receiver FROM evm_erc20_transfer WHERE sender = $alice`, { alice: alice! });
      expect(rows.map((x) => x.receiver)).toEqual([bob]);
    } finally {
      await store.close();
    }
  });
});
