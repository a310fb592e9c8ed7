/**
 * The explorer's Follow button in a real browser (Debian's Chromium driven by
 * playwright-core) against a real `chainq serve` whose store follows anvil
 * (`chainq ingest evm --follow` inside the server): rows of new blocks appear
 * in the Live table as they are mined, a reorg's undone rows leave it, the
 * cursor and cost are shown, and Stop ends the stream.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Anvil } from '../helpers/anvil.ts';
import type { Chain } from '../helpers/chain.ts';
import { REPO_ROOT, type RunningCli } from '../helpers/cli.ts';
import { followInServer } from '../helpers/ingestEvm.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { startTokenChain } from '../helpers/tokenChain.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');

let anvil: Anvil;
let chain: Chain;
let token: Hex;
let alice: Hex;
let bob: Hex;
let carol: Hex;
let dir: string;
let server: Server;
let follower: RunningCli;
let browser: Browser;
let page: Page;

async function transfer(to: Hex, amount: bigint): Promise<number> {
  return Number(BigInt((await chain.send('TestToken', token, 'transfer', [to, amount], { from: alice })).blockNumber));
}

beforeAll(async () => {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build-web.mjs')], { stdio: 'inherit' });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  ({ anvil, chain, token, alice, bob, carol } = await startTokenChain());
  for (let i = 1; i <= 2; i++) await transfer(bob, BigInt(i));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-follow-'));
  server = await startServer(dir);
  follower = await followInServer(anvil.url, dir);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'] });
  page = await (await browser.newContext({ viewport: { width: 1360, height: 1000 } })).newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (follower && follower.child.exitCode === null) follower.child.kill('SIGINT');
  await follower?.done;
  await server?.stop();
  await anvil?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const shown = (attr: string) => async () =>
  Number(
    (await page
      .getByTestId('follow-summary')
      .locator(`[${attr}]`)
      .getAttribute(attr)
      .catch(() => null)) ?? 0,
  );
const receivers = () => page.locator('table.rows tbody tr[aria-rowindex]').evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));

describe('Follow in the explorer', { timeout: 180_000 }, () => {
  it('streams new blocks into the table, removes the rows a reorg undoes, shows cursor and cost, and stops', async () => {
    await page.goto(`${server.url}/explore`);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByLabel('Family', { exact: true }).selectOption('evm');
    await page.getByLabel('Protocol', { exact: true }).selectOption('erc20');
    await page.getByLabel('Event type', { exact: true }).selectOption('transfer');
    await page.locator('#p-network').selectOption('ETH');
    await page.locator('#p-token').fill(token);
    await page.locator('#p-block_start').fill('1');
    await page.getByRole('button', { name: 'Follow' }).click();

    // The mint and two transfers, then a new block's transfer while following.
    await expect.poll(shown('data-rows'), { timeout: 30_000 }).toBe(3);
    await transfer(bob, 3n);
    await expect.poll(shown('data-rows'), { timeout: 30_000 }).toBe(4);
    expect(await page.getByTestId('follow-cursor').textContent()).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await shown('data-charged')()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'follow-1-rows.png'), fullPage: true });

    // Chain A pays bob twice; then a longer chain B from the same fork point pays carol instead.
    const snapshot = await chain.rpc<Hex>('evm_snapshot');
    await transfer(bob, 4n);
    await transfer(bob, 5n);
    await expect.poll(shown('data-rows'), { timeout: 30_000 }).toBe(6);
    expect(await chain.rpc('evm_revert', [snapshot])).toBe(true);
    for (let i = 1; i <= 3; i++) await transfer(carol, BigInt(10 + i));
    await expect.poll(shown('data-undone'), { timeout: 30_000 }).toBe(2);
    await expect.poll(shown('data-rows'), { timeout: 30_000 }).toBe(7);
    const texts = (await receivers()).join('\n').toLowerCase();
    expect(texts).toContain(carol.toLowerCase());
    const api = await fetch(`${server.url}/v1/evm/erc20/events/transfer?network=ETH&token=${token}&block_start=1&block_end=${await chain.blockNumber()}`, { headers: { 'x-api-key': server.key } });
    const truth = ((await api.json()) as { events: unknown[] }).events;
    expect(truth).toHaveLength(7);
    await page.screenshot({ path: path.join(ARTIFACTS, 'follow-2-undone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => page.getByTestId('follow-summary').getAttribute('data-status')).toBe('stopped');
    await page.getByRole('button', { name: 'Follow' }).waitFor();
  });
});
