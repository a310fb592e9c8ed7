/**
 * The operator's path to ClickHouse, with the real `chainq` command: a DuckDB
 * store with a customer's key is moved with `chainq copy` (verified, and a
 * second run resumes with nothing left to do), then `chainq serve --store
 * chdb:DIR` answers that key with the bytes the DuckDB server answered, and
 * `chainq keys revoke --store chdb:DIR` takes effect while it serves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { openStoreAt } from '../../src/store/openStore.ts';
import { parseStoreTarget } from '../../src/store/target.ts';
import { recordVerifications, verificationRecords } from '../../src/store/verification.ts';
import { runCli } from '../helpers/cli.ts';
import { startServer, writeDemoStore, type Server } from '../helpers/server.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;
const QUERY = `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 30}&token=USDT`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ch-cli-'));
const duckDir = path.join(root, 'duck');
const chDir = path.join(root, 'ch');
let key: string;

beforeAll(async () => {
  await writeDemoStore(duckDir, { days: 0.1 });
  const created = await runCli(['keys', 'create', '--plan', 'unlimited', '--name', 'customer', '--data', duckDir]);
  expect(created.code, created.stderr).toBe(0);
  key = created.stdout.trim().split('\n').pop()!.trim();
  const duck = await openStoreAt(parseStoreTarget(`duckdb:${duckDir}`));
  await recordVerifications(duck, [VERIFIED]);
  await duck.close();
});

const VERIFIED = {
  network: 'ETH',
  dataset: 'evm/erc20/transfer',
  verifiedAt: new Date('2026-01-02T03:04:05.000Z'),
  node: 'http://node.example:8545',
  sampled: false,
  ranges: [{ lo: ETH0, hi: ETH0 + 30 }],
  blocks: 31,
  result: 'ok' as const,
  mismatchBlocks: [],
};

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function body(server: Server, url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.url}${url}`, { headers: { 'x-api-key': server.key } });
  return { status: res.status, text: await res.text() };
}

describe('chainq copy and --store chdb:', () => {
  it('copies every part, verifies the row counts, and resumes with nothing to do', async () => {
    const first = await runCli(['copy', '--from', `duckdb:${duckDir}`, '--to', `chdb:${chDir}`]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/evm_erc20_transfer\/ETH: \d+ rows/);
    expect(first.stdout).toMatch(/verified: \d+ dataset\/network row counts equal on both sides/);
    // The operator's verification record moves too: coverage's verified_ranges must not vanish with the engine.
    const ch = await openStoreAt(parseStoreTarget(`chdb:${chDir}`));
    try {
      expect(await verificationRecords(ch, null)).toEqual([VERIFIED]);
    } finally {
      await ch.close();
    }

    const again = await runCli(['copy', '--from', `duckdb:${duckDir}`, '--to', `chdb:${chDir}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^0 parts copied, \d+ skipped/m);
    expect(again.stdout).toContain('verified');
  });

  it('refuses a copy in the wrong direction, and a --store it cannot read, with a message', async () => {
    const wrong = await runCli(['copy', '--from', `chdb:${chDir}`, '--to', `duckdb:${duckDir}`]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/--from must be a DuckDB store/);
    const bad = await runCli(['status', '--store', 'postgres://x:secret@h/db']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown engine/);
    expect(bad.stderr).not.toContain('secret');
  });

  it('serves the copied key with the bytes DuckDB served, and a revocation takes effect while it serves', async () => {
    const duck = await startServer(duckDir, [], key);
    let expected: { status: number; text: string };
    try {
      expected = await body(duck, QUERY);
    } finally {
      await duck.stop();
    }
    expect(expected.status).toBe(200);

    const ch = await startServer(chDir, ['--store', `chdb:${chDir}`], key);
    try {
      const got = await body(ch, QUERY);
      expect(got.status).toBe(200);
      expect(got.text).toBe(expected.text);

      // The server holds the embedded store: the command goes through its operator channel.
      const revoked = await runCli(['keys', 'revoke', key.slice(0, 7), '--store', `chdb:${chDir}`]);
      expect(revoked.code, revoked.stderr).toBe(0);
      // Servers cache a key's lookup for up to 5 s (docs/metering.md).
      const deadline = Date.now() + 6_000;
      let status = 200;
      while (status !== 401 && Date.now() < deadline) {
        status = (await body(ch, QUERY)).status;
        if (status !== 401) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).toBe(401);
    } finally {
      await ch.stop();
    }
  });
});
