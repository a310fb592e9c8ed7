/**
 * Crash safety: `chainq ingest evm` killed with SIGKILL at several moments,
 * then run again, leaves exactly the store an uninterrupted run leaves; and
 * after each kill the store holds rows only where it records coverage.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { createStore } from '../../src/store/openStore.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain } from '../helpers/chain.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { startServer } from '../helpers/server.ts';
import { dumpStore } from './storeDump.ts';
import { engineSql } from '../helpers/engineSql.ts';

describe('ingest evm: kill at any moment, run again', () => {
  let anvil: Anvil;
  let root: string;
  let args: (dir: string) => string[];
  let to: number;
  let protocols: string;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    const chain = await connectChain(anvil.url);
    const [deployer, alice, bob, carol] = chain.accounts as [Hex, Hex, Hex, Hex];
    const token = await chain.deploy('TestToken', ['Six', 'SIX', 6]);
    const spammer = await chain.deploy('LogSpammer');
    const payments = await chain.deploy('Payments');
    const factory = await chain.deploy('V3Factory');
    await chain.send('TestToken', token, 'mint', [alice, 10n ** 15n]);
    // One transaction per block: token transfers, bursts of logs, payments plain and inside calls, a new pool.
    for (let i = 0; i < 72; i++) {
      switch (i % 4) {
        case 0:
          await chain.send('TestToken', token, 'transfer', [[bob, carol, deployer][i % 3]!, BigInt(1000 + i)], { from: alice });
          break;
        case 1:
          await chain.send('LogSpammer', spammer, 'spam', [5n, BigInt(i * 100)]);
          break;
        case 2:
          await chain.pay(bob, carol, BigInt(i) * 10n ** 15n);
          break;
        default:
          await chain.send('Payments', payments, 'split', [bob, carol], { from: alice, value: BigInt(i) * 10n ** 14n });
      }
      if (i === 40) await chain.send('V3Factory', factory, 'createPool', [token, spammer, 3000]);
    }
    to = await chain.blockNumber();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-resume-'));
    protocols = path.join(root, 'protocols.json');
    fs.writeFileSync(protocols, JSON.stringify({ dex_v3: { ETH: { factory, deployed_block: 0 } } }));
    args = (dir) => ingestEvmArgs({ rpc: anvil.url, from: 1, to, batchBlocks: 4, concurrency: 3, data: dir, protocols });
  });

  afterAll(async () => {
    await anvil?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('store after kills and reruns equals the store of one uninterrupted run; no rows outside coverage after a kill', async () => {
    const reference = path.join(root, 'reference');
    const once = await runCli(args(reference));
    expect(once.code, once.stderr).toBe(0);

    const crashed = path.join(root, 'crashed');
    // Kill after the k-th committed batch, after a varying pause: mid-fetch, mid-decode or mid-commit.
    for (const [k, pauseMs] of [
      [2, 0],
      [5, 3],
      [9, 11],
    ] as const) {
      const run = spawnCli(args(crashed));
      let seen = 0;
      await run.waitFor((l) => l.event === 'batch' && ++seen >= k);
      await new Promise((r) => setTimeout(r, pauseMs));
      run.child.kill('SIGKILL');
      const r = await run.done;
      expect(r.signal).toBe('SIGKILL');

      const store = await createStore({ dataDir: crashed, readOnly: true });
      try {
        const [cov] = await engineSql(store).all<{ lo: bigint; hi: bigint; n: bigint }>(
          `SELECT min(lo) AS lo, max(hi) AS hi, count(*) AS n FROM coverage WHERE dataset = 'evm/erc20/transfer' AND scope = 'ETH'`,
        );
        // Batches commit in order: what is covered is one stretch from the start, and not yet everything.
        expect(Number(cov!.n)).toBe(1);
        expect(Number(cov!.lo)).toBe(1);
        expect(Number(cov!.hi)).toBeLessThan(to);
        const hi = Number(cov!.hi);
        for (const table of ['evm_erc20_transfer', 'evm_native_transfer']) {
          const [out] = await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE block_number > $hi`, { hi });
          expect(Number(out!.n), `${table} rows beyond coverage`).toBe(0);
        }
        const [blocks] = await engineSql(store).all<{ n: bigint; max: bigint }>(`SELECT count(*) AS n, max(number) AS max FROM blocks`);
        expect([Number(blocks!.n), Number(blocks!.max)]).toEqual([hi, hi]);
      } finally {
        await store.close();
      }
    }
    // Without --from the command continues after the last block stored.
    const last = await runCli(args(crashed).filter((a, i, all) => a !== '--from' && all[i - 1] !== '--from'));
    expect(last.code, last.stderr).toBe(0);

    const [a, b] = await Promise.all(
      [reference, crashed].map(async (dir) => {
        const store = await createStore({ dataDir: dir, readOnly: true });
        try {
          return await dumpStore(store, { physical: true });
        } finally {
          await store.close();
        }
      }),
    );
    expect(JSON.parse(b!).evm_erc20_transfer.length).toBeGreaterThan(100);
    expect(b).toBe(a);
  });

  it('a server killed with SIGKILL during a supervised job resumes it when restarted, ending with the store of one uninterrupted run', { timeout: 300_000 }, async () => {
    const reference = path.join(root, 'reference-server');
    expect((await runCli(args(reference))).code).toBe(0);
    const live = path.join(root, 'live');
    fs.mkdirSync(live);
    const config = path.join(root, 'chainq.json');
    fs.writeFileSync(config, JSON.stringify({ jobs: [{ name: 'eth', source: 'evm', network: 'ETH', rpc: anvil.url, from: 1, to, confirmations: 0, batchBlocks: 1, concurrency: 3, protocols }] }));
    let server = await startServer(live, ['--config', config]);
    const covered = async () => {
      const res = await fetch(`${server.url}/v1/coverage?protocol=erc20&network=ETH`, { headers: { 'x-api-key': server.key } });
      return ((await res.json()) as { coverage: { newest: { block: number } }[] }).coverage[0]?.newest.block ?? 0;
    };
    while ((await covered()) < 8) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGKILL');
    expect(await covered().catch(() => 0)).toBeLessThan(to);
    await server.stop();
    server = await startServer(live, ['--config', config], server.key);
    for (;;) {
      const jobs = JSON.parse((await runCli(['jobs', 'list', '--json', '--data', live])).stdout) as { state: string; attempts: number; lastError: unknown }[];
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.lastError).toBeNull();
      if (jobs[0]!.state === 'done') break;
      expect(jobs[0]!.state).toBe('running');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await covered()).toBe(to);
    await server.stop();
    const [a, b] = await Promise.all(
      [reference, live].map(async (dir) => {
        const store = await createStore({ dataDir: dir, readOnly: true });
        try {
          return await dumpStore(store, { physical: true });
        } finally {
          await store.close();
        }
      }),
    );
    expect(b).toBe(a);
  });
});
