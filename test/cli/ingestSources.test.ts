import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestGroup } from '../../src/cli/ingestGroup.ts';
import { registerIngestSources } from '../../src/cli/ingest-sources.ts';
import { ingestTron } from '../../src/ingest/tron/ingestTron.ts';
import { createStore } from '../../src/store/openStore.ts';
import { startSourceServer, type SourceServer } from '../helpers/sourceServer.ts';
import { TronChain, tronHandlers } from '../ingest/fixtures/tron.ts';
import { coverage, dump, memoryStore, tempDir } from '../ingest/helpers.ts';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/chainq.js');
const FIRST = 78_450_000;

function chainq(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CHAINQ_LOG_LEVEL: 'warn' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

describe('chainq ingest command group', () => {
  it('shares one `ingest` group with other sources, whichever registers first', () => {
    const program = new Command('chainq');
    ingestGroup(program).command('evm').description("another helper's source");
    registerIngestSources(program);
    const groups = program.commands.filter((c) => c.name() === 'ingest');
    expect(groups).toHaveLength(1);
    expect(groups[0]!.commands.map((c) => c.name()).sort()).toEqual(['btc', 'evm', 'tron', 'venue_a', 'venue_b']);
  });
});

describe('chainq ingest tron, killed mid-run', () => {
  let server: SourceServer;
  let chain: TronChain;
  beforeAll(async () => {
    server = await startSourceServer();
    chain = new TronChain(FIRST, Date.UTC(2025, 11, 1));
    chain.grow(600, 11);
    for (const [p, h] of tronHandlers(chain)) server.handlers.set(p, h);
  });
  afterAll(async () => server.close());

  it('resumes from its last checkpoint after SIGKILL and ends identical to an uninterrupted run', async () => {
    const dir = tempDir('cli-kill');
    try {
      const args = ['ingest', 'tron', '--api', server.url, '--from', String(FIRST), '--to', String(FIRST + 599), '--confirmations', '0', '--batch', '10', '--data', dir, '--quiet', '--json'];
      const first = chainq(args);
      // Fetching batch k starts once batch k−2 is taken, while batch k−3 may still be writing (the shared pipeline,
      // src/ingest/chain/commitInOrder.ts, overlaps one write with the fetches ahead) and batch k−4 is committed:
      // seeing block +300 asked means 270 blocks are safely stored.
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (server.requests.some((r) => r.path === '/wallet/getblockbylimitnext' && (r.body as { startNum: number }).startNum >= FIRST + 300)) {
            clearInterval(t);
            first.child.kill('SIGKILL');
            resolve();
          }
        }, 5);
        void first.done.then((r) => {
          clearInterval(t);
          reject(new Error(`the first run ended before it could be killed: ${r.stderr}`));
        });
      });
      expect((await first.done).code).toBeNull(); // killed by the signal

      const second = await chainq(args).done;
      expect(second.code).toBe(0);
      const summary = JSON.parse(second.stdout) as { done: number; skipped: number };
      expect(summary.skipped).toBeGreaterThanOrEqual(270);
      expect(summary.skipped + summary.done).toBe(600);

      const reference = await memoryStore();
      const store = await createStore({ dataDir: dir, threads: 2 });
      try {
        await ingestTron({ store: reference, api: server.url, from: FIRST, to: FIRST + 599, confirmations: 0, batchBlocks: 10, http: { retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 } } });
        for (const t of ['tron_native_transfer', 'tron_trc20_transfer', 'blocks', 'coverage']) expect(await dump(store, t)).toEqual(await dump(reference, t));
      } finally {
        await store.close();
        await reference.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits non-zero naming the block when the node leaves out transaction infos, and covers it once the node answers whole', async () => {
    const dir = tempDir('cli-short-infos');
    const honest = tronHandlers(chain).get('/wallet/gettransactioninfobyblocknum')!;
    const bad = chain.tokens.find((t) => t.block >= FIRST + 10 && t.decimals !== null)!.block;
    try {
      server.handlers.set('/wallet/gettransactioninfobyblocknum', (body) => ((body as { num: number }).num === bad ? {} : honest(body)));
      const args = [
        'ingest',
        'tron',
        '--api',
        server.url,
        '--from',
        String(FIRST),
        '--to',
        String(FIRST + 29),
        '--confirmations',
        '0',
        '--batch',
        '10',
        '--retries',
        '1',
        '--retry-delay',
        '1',
        '--data',
        dir,
        '--quiet',
      ];
      const failed = await chainq(args).done;
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`TRON block ${bad}`);
      server.handlers.set('/wallet/gettransactioninfobyblocknum', honest);
      const ok = await chainq(args).done;
      expect(ok.code).toBe(0);
      const store = await createStore({ dataDir: dir, threads: 2 });
      try {
        expect(await coverage(store, 'tron/trc20/transfer', 'TRON')).toEqual([[FIRST, FIRST + 29]]);
      } finally {
        await store.close();
      }
    } finally {
      server.handlers.set('/wallet/gettransactioninfobyblocknum', honest);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints a summary and refuses an incomplete command line', async () => {
    const dir = tempDir('cli-args');
    try {
      const bad = await chainq(['ingest', 'tron', '--from', '1', '--data', dir]).done;
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--api/);
      const ok = await chainq(['ingest', 'tron', '--api', server.url, '--from', String(FIRST), '--to', String(FIRST + 19), '--confirmations', '0', '--data', dir, '--quiet']).done;
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^tron: 20 block\(s\) ingested, 0 already ingested, [\d,]+ rows written/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chainq ingest venue_b --token', () => {
  it('refuses a spot pair as not supported before reading any source', async () => {
    const dir = tempDir('cli-spot');
    try {
      const r = await chainq(['ingest', 'venue_b', '--token', 'BTC,@107', '--since', '2025-12-01', '--until', '2025-12-02', '--source', dir, '--data', dir]).done;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("--token '@107' is a spot pair; spot markets are not supported, only perpetual coins such as BTC or kPEPE");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
