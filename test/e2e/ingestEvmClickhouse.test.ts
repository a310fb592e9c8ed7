/**
 * `chainq ingest evm --store chdb:DIR`: EVM ingestion into ClickHouse (chDB in
 * process) from a real anvil serves exactly what ingestion into DuckDB
 * serves, endpoint by endpoint; and killed with SIGKILL mid-run, then run
 * again, it serves what an uninterrupted run serves (docs/storage.md,
 * "Writes without transactions").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain } from '../helpers/chain.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { buildEvmScenario, writeScenarioConfig, type EvmScenario } from './evmScenario.ts';

let anvil: Anvil;
let s: EvmScenario;
let root: string;
let protocols: string;
let urls: string[];

const ingest = (store: string, extra: readonly string[] = []) => ingestEvmArgs({ rpc: anvil.url, from: s.from, to: s.to, store, protocols }, ...extra);

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
  s = await buildEvmScenario(await connectChain(anvil.url));
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ch-ingest-'));
  protocols = writeScenarioConfig(root, s).protocols;
  const range = `network=ETH&block_start=${s.from}&block_end=${s.to}&verbose=true`;
  urls = [
    ...Object.values(s.tokens).map((t) => `/v1/evm/erc20/events/transfer?${range}&token=${t}`),
    `/v1/evm/native/events/transfer?${range}`,
    ...['deposit', 'withdraw', 'borrow', 'repay', 'flashloan', 'liquidation'].map((e) => `/v1/evm/lending_v3/events/${e}?${range}&eth_market_type=core`),
    ...['deposit', 'withdrawal_request', 'withdrawal_claimed'].map((e) => `/v1/evm/staking/events/${e}?${range}`),
  ];
});

afterAll(async () => {
  await anvil?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Every URL's JSON body from a server on `dir` (and `--store`). */
async function answers(dir: string, store: string): Promise<Record<string, string>> {
  const created = await runCli(['keys', 'create', '--plan', 'unlimited', '--store', store]);
  expect(created.code, created.stderr).toBe(0);
  const key = created.stdout.trim().split('\n').pop()!.trim();
  const server: Server = await startServer(dir, ['--store', store], key);
  try {
    const out: Record<string, string> = {};
    for (const url of urls) {
      const res = await fetch(`${server.url}${url}`, { headers: { 'x-api-key': server.key } });
      const text = await res.text();
      expect(res.status, `${url}: ${text}`).toBe(200);
      out[url] = text;
    }
    return out;
  } finally {
    await server.stop();
  }
}

describe('EVM ingestion into ClickHouse (chDB)', () => {
  let reference: Record<string, string>;
  let onChdb: Record<string, string>;

  it('serves what ingestion into DuckDB serves, endpoint by endpoint', async () => {
    const duck = path.join(root, 'duck');
    const ch = path.join(root, 'ch');
    const a = await runCli(ingest(`duckdb:${duck}`));
    expect(a.code, a.stderr).toBe(0);
    const b = await runCli(ingest(`chdb:${ch}`));
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/^done: \d+ blocks, \d+ events/m);
    reference = await answers(duck, `duckdb:${duck}`);
    onChdb = await answers(ch, `chdb:${ch}`);
    const transfers = JSON.parse(reference[urls[0]!]!) as { events: unknown[] };
    expect(transfers.events.length, 'the scenario has transfers of its first token').toBeGreaterThan(0);
    // The same bytes (docs/storage.md, "The same bytes on both engines").
    for (const url of urls) expect(onChdb[url], url).toBe(reference[url]);
  });

  it('ingests inside a server serving from chDB, which answers throughout and ends with the same answers', async () => {
    const live = path.join(root, 'live');
    const store = `chdb:${live}`;
    const created = await runCli(['keys', 'create', '--plan', 'unlimited', '--store', store]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').pop()!.trim();
    const server = await startServer(live, ['--store', store], key);
    try {
      // The server holds the embedded store: the command hands the job to it and follows its progress.
      const job = spawnCli(ingest(store, ['--batch-blocks', '5']));
      const statuses = new Set<number>();
      while (job.child.exitCode === null) {
        const res = await fetch(`${server.url}/v1/coverage`, { headers: { 'x-api-key': key } });
        statuses.add(res.status);
        await new Promise((r) => setTimeout(r, 50));
      }
      const done = await job.done;
      expect(done.code, done.stderr).toBe(0);
      expect([...statuses]).toEqual([200]);
      for (const url of urls) {
        const res = await fetch(`${server.url}${url}`, { headers: { 'x-api-key': key } });
        expect(res.status, url).toBe(200);
        expect(await res.json(), url).toEqual(JSON.parse(onChdb[url]!));
      }
    } finally {
      await server.stop();
    }
  });

  it('killed with SIGKILL mid-run and run again, serves what an uninterrupted run serves', async () => {
    const crashed = path.join(root, 'crashed');
    const args = ingest(`chdb:${crashed}`, ['--batch-blocks', '3', '--concurrency', '2']);
    for (const [k, pauseMs] of [
      [2, 0],
      [4, 7],
    ] as const) {
      const run = spawnCli(args);
      let seen = 0;
      await run.waitFor((l) => l.event === 'batch' && ++seen >= k);
      await new Promise((r) => setTimeout(r, pauseMs));
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
    }
    const last = await runCli(args);
    expect(last.code, last.stderr).toBe(0);
    const after = await answers(crashed, `chdb:${crashed}`);
    for (const url of urls) expect(after[url], url).toBe(onChdb[url]);
  });
});
