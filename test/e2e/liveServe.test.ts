/**
 * Live operation against the real server, anvil and DuckDB: one `chainq
 * serve` keeps answering while ingestion follows a chain inside it, keys and
 * plans change, and every operator command goes through its operator channel.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry } from '../../src/catalog/coverage.ts';
import type { Anvil } from '../helpers/anvil.ts';
import type { Chain } from '../helpers/chain.ts';
import { runCli, type RunningCli } from '../helpers/cli.ts';
import { followInServer } from '../helpers/ingestEvm.ts';
import { operatorMetrics } from '../helpers/operatorMetrics.ts';
import { writePlansFile } from '../helpers/metered.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { startTokenChain } from '../helpers/tokenChain.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let anvil: Anvil;
let chain: Chain;
let token: Hex;
let alice: Hex;
let bob: Hex;
let carol: Hex;
let dir: string;
let server: Server;
/** Block number of every Transfer the chain holds, in order (the mint first). */
const transfers: number[] = [];

const get = (p: string, key = server.key) => fetch(`${server.url}${p}`, { headers: { 'x-api-key': key } });

async function newest(): Promise<number | null> {
  const res = await get('/v1/coverage?protocol=erc20&network=ETH');
  const [entry] = ((await res.json()) as { coverage: CoverageEntry[] }).coverage;
  return entry?.newest.block ?? null;
}

async function rows(hi: number, extra = ''): Promise<{ block_number: number; receiver: string; amount: string }[]> {
  const res = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=${token}&block_start=1&block_end=${hi}${extra}`);
  const body = (await res.json()) as { events: { block_number: number; receiver: string; amount: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.events;
}

async function stopFollower(f: RunningCli): Promise<void> {
  f.child.kill('SIGINT');
  const r = await f.done;
  expect(r.code, r.stderr).toBe(130);
  expect(r.stdout).toMatch(/^stopped:/);
}

beforeAll(async () => {
  let mintBlock: number;
  ({ anvil, chain, token, alice, bob, carol, mintBlock } = await startTokenChain());
  transfers.push(mintBlock);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-live-'));
  writePlansFile(dir, { tiny: { requests_per_minute: 3, monthly_blocks: 1_000_000 } });
  server = await startServer(dir);
});

afterAll(async () => {
  await server?.stop();
  await anvil?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a live server', { timeout: 300_000 }, () => {
  it('follows a chain in a job inside the server: each block is served within seconds of its confirmation, and a reader never sees rows without coverage or the reverse', async () => {
    const follower = await followInServer(anvil.url, dir, { confirmations: 2, batchBlocks: 5 });
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        const hi = await newest();
        if (hi !== null) {
          // Coverage promises exactly the node's transfers up to its newest block.
          const got = await rows(hi);
          const truth = await chain.rpc<{ blockNumber: Hex }[]>('eth_getLogs', [{ address: token, fromBlock: '0x1', toBlock: `0x${hi.toString(16)}` }]);
          expect(got.map((r) => r.block_number)).toEqual(truth.map((l) => Number(BigInt(l.blockNumber))));
          reads++;
        }
        await sleep(20);
      }
    })();
    for (let i = 1; i <= 12; i++) {
      const r = await chain.send('TestToken', token, 'transfer', [bob, BigInt(i)], { from: alice });
      const block = Number(BigInt(r.blockNumber));
      transfers.push(block);
      // Two more blocks confirm it; then the server must serve it within seconds (5 s on a quiet machine; 10 s allows a loaded CI).
      await chain.rpc('anvil_mine', ['0x2']);
      const t0 = Date.now();
      while (((await newest()) ?? 0) < block) {
        expect(Date.now() - t0, `block ${block} not served`).toBeLessThan(10_000);
        await sleep(25);
      }
    }
    reading = false;
    await reader;
    expect(reads).toBeGreaterThan(10);
    // Ctrl-C stops the job at a batch boundary; the server keeps serving.
    await stopFollower(follower);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await rows(transfers.at(-1)!)).length).toBe(transfers.length);
    // The operator channel's /metrics shows what the job did.
    const metrics = await operatorMetrics(dir);
    const rowsTotal = /chainq_ingest_rows_total\{network="ETH",dataset="evm\/erc20\/transfer"\} (\d+)/.exec(metrics);
    expect(Number(rowsTotal?.[1])).toBe(transfers.length);
    expect(metrics).toMatch(/chainq_ingest_lag_blocks\{network="ETH"\} \d+/);
    expect(metrics).toMatch(/chainq_job_state\{job="evm ETH \(follow\)",state="stopped"\} 1/);
    const status = await runCli(['status', '--data', dir, '--json']);
    const jobs = (JSON.parse(status.stdout) as { server: { jobs: { state: string; label: string }[] } }).server.jobs;
    expect(jobs).toEqual([expect.objectContaining({ label: 'evm ETH (follow)', state: 'stopped' })]);
  });

  it('rolls back a reorg while queries run: rows of the replaced blocks are never served beside the new chain', async () => {
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    const chainA: number[] = [];
    for (let i = 1; i <= 3; i++) chainA.push(Number(BigInt((await chain.send('TestToken', token, 'transfer', [bob, 1_000n + BigInt(i)], { from: alice })).blockNumber)));
    const follower = await followInServer(anvil.url, dir, { batchBlocks: 5 });
    while (((await newest()) ?? 0) < chainA.at(-1)!) await sleep(25);
    const seen: { receiver: string; amount: string }[][] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const hi = await newest();
        // A reorg may un-cover blocks between the coverage call and the query: then the query is refused, never answered short.
        if (hi !== null) {
          const res = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=${token}&block_start=1&block_end=${hi}`);
          const body = (await res.json()) as { events?: { receiver: string; amount: string }[]; code?: string };
          if (res.status === 200) seen.push(body.events!);
          else expect(body.code).toBe('invalid_range');
        }
        await sleep(10);
      }
    })();
    expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
    const chainB: number[] = [];
    for (let i = 1; i <= 5; i++) chainB.push(Number(BigInt((await chain.send('TestToken', token, 'transfer', [carol, 2_000n + BigInt(i)], { from: alice })).blockNumber)));
    const t0 = Date.now();
    while (((await newest()) ?? 0) < chainB.at(-1)!) {
      expect(Date.now() - t0).toBeLessThan(15_000);
      await sleep(25);
    }
    reading = false;
    await reader;
    await stopFollower(follower);
    const isA = (r: { receiver: string }) => r.receiver === bob;
    const isB = (r: { receiver: string }) => r.receiver === carol;
    const mixed = seen.filter((s) => s.some((r) => isA(r) && Number(r.amount) > 1e-15) && s.some(isB));
    expect(mixed).toEqual([]);
    const final = await rows(chainB.at(-1)!);
    expect(final.filter(isB).length).toBe(5);
    expect(final.filter((r) => isA(r) && BigInt(Math.round(Number(r.amount) * 1e18)) > 1_000n)).toEqual([]);
    transfers.push(...chainB);
  });

  it('applies keys created, re-planned and revoked, and a reloaded plans file, within 5 s while a load runs', async () => {
    let loading = true;
    let served = 0;
    const load = Promise.all(
      [1, 2, 3].map(async () => {
        while (loading) {
          const res = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=${token}&block_start=1&block_end=${transfers.at(-1)}`);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          served++;
        }
      }),
    );
    const within5s = async (check: () => Promise<boolean>, what: string) => {
      const t0 = Date.now();
      while (!(await check())) {
        expect(Date.now() - t0, what).toBeLessThan(5_000);
        await sleep(100);
      }
    };
    const created = await runCli(['keys', 'create', '--plan', 'free', '--data', dir]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').pop()!;
    const probe = () => get('/v1/protocols', key);
    await within5s(async () => (await probe()).status === 200, 'new key accepted');
    expect((await runCli(['keys', 'set-plan', key.slice(0, 7), 'tiny', '--data', dir])).code).toBe(0);
    await within5s(async () => (await probe()).headers.get('x-ratelimit-limit') === '3', 'new plan applied');
    writePlansFile(dir, { tiny: { requests_per_minute: 7, monthly_blocks: 1_000_000 } });
    const reload = await runCli(['plans', 'reload', '--data', dir]);
    expect(reload.code, reload.stderr).toBe(0);
    expect(reload.stdout).toMatch(/tiny: 7\/min/);
    await within5s(async () => {
      const r = await probe();
      return r.headers.get('x-ratelimit-limit') === '7' || r.status === 429;
    }, 'reloaded plan applied');
    expect((await runCli(['keys', 'revoke', key.slice(0, 7), '--data', dir])).code).toBe(0);
    await within5s(async () => (await probe()).status === 401, 'revoked key refused');
    loading = false;
    await load;
    expect(served).toBeGreaterThan(3);
  });

  it('runs every operator command against the live server with the output it gives on a stopped store', async () => {
    const tokensCsv = path.join(dir, 'tokens.csv');
    fs.writeFileSync(tokensCsv, `symbol,name,aliases,network,address,decimals\nEIGHT,Eighteen,,ETH,${token},18\n`);
    const labelsCsv = path.join(dir, 'labels.csv');
    fs.writeFileSync(labelsCsv, `address,label,category,network\n${bob},Bob's desk,exchange,ETH\n`);
    const commands = [['status', '--json'], ['keys', 'list', '--json'], ['keys', 'usage', '--json'], ['tokens', 'import', tokensCsv], ['labels', 'import', labelsCsv], ['compact']];
    // Charged first, so that the ledger is the same for both runs of `keys usage`.
    const labelled = await get(`/v1/evm/erc20/events/transfer?network=ETH&token=${token}&block_start=1&block_end=${transfers.at(-1)}`);
    expect(labelled.status).toBe(200);
    await labelled.arrayBuffer();
    const live: string[] = [];
    for (const c of commands) {
      const r = await runCli([...c, '--data', dir]);
      expect(r.code, `${c.join(' ')}: ${r.stderr}`).toBe(0);
      live.push(c[0] === 'status' ? JSON.stringify((JSON.parse(r.stdout) as { datasets: unknown }).datasets) : r.stdout);
    }
    await server.stop();
    const stopped: string[] = [];
    for (const c of commands) {
      const r = await runCli([...c, '--data', dir]);
      expect(r.code, `${c.join(' ')}: ${r.stderr}`).toBe(0);
      stopped.push(c[0] === 'status' ? JSON.stringify((JSON.parse(r.stdout) as { datasets: unknown }).datasets) : r.stdout);
    }
    for (let i = 0; i < commands.length; i++) expect(stopped[i], commands[i]!.join(' ')).toEqual(live[i]);
    expect((await runCli(['plans', 'reload', '--data', dir])).stderr).toMatch(/no chainq server is running/);
    server = await startServer(dir, [], server.key);
  });
});
