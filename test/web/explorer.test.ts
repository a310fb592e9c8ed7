/**
 * The explorer in a real browser (Debian's Chromium driven by playwright-core)
 * against a real `chainq serve` with demo data: a query built by clicking is
 * priced as calculate-cost prices it and shows the JSON API's rows; an
 * aggregate with pivots plots the API's buckets; a bad range shows the API's
 * message at its field and costs nothing; a shared ?q= address restores the
 * query. Every step leaves a screenshot in test/artifacts/.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { REPO_ROOT, runCli } from '../helpers/cli.ts';
import { startServer, type Server } from '../helpers/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');
const ETH0 = DEMO_START_BLOCKS.ETH!;

let dataDir: string;
let server: Server;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // The page under test is the one built from the current sources.
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build-web.mjs')], { stdio: 'inherit' });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-explorer-'));
  const demo = await runCli(['demo', '--data', dataDir, '--days', '0.3']);
  if (demo.code !== 0) throw new Error(`chainq demo failed: ${demo.stderr}`);
  server = await startServer(dataDir);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
  page = await context.newPage();
  // Nothing may be loaded from anywhere but the server under test.
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(server.url) && !url.startsWith('blob:') && !url.startsWith('data:')) throw new Error(`the page requested ${url}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

async function api<T>(pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${pathAndQuery}`, { ...init, headers: { 'x-api-key': server.key, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  return { status: res.status, body: (await res.json()) as T };
}
const priceOf = (target: string) => api<{ cost: number; error?: string }>('/v1/calculate-cost', { method: 'POST', body: JSON.stringify({ query: target }) });
const usedBlocks = async () => (await api<{ blocks_used: number }>('/v1/usage')).body.blocks_used;

/** The API target the page's address carries (?q=). */
const sharedTarget = () => new URL(page.url()).searchParams.get('q')!;
/** A target as path plus its parameters in name order: the same query whatever order the parameters come in. */
const normalized = (target: string) => {
  const u = new URL(target, 'http://x');
  return `${u.pathname}?${[...u.searchParams]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join('&')}`;
};

async function pick(family: string, protocol: string, event: string, kind: 'raw' | 'aggregate') {
  await page.getByLabel('Family', { exact: true }).selectOption(family);
  await page.getByLabel('Protocol', { exact: true }).selectOption(protocol);
  await page.getByLabel('Event type', { exact: true }).selectOption(event);
  await page.getByLabel('Result', { exact: true }).selectOption(kind);
}

const param = (name: string) => page.locator(`#p-${name}`);

/** Opens the explorer (with a shared query) and gives it the key if this browser has none yet. */
async function openExplorer(target?: string) {
  await page.goto(`${server.url}/explore${target ? `?q=${encodeURIComponent(target)}` : ''}`);
  await page.getByRole('heading', { name: 'Query' }).waitFor();
  if (await page.getByLabel('API key').count()) {
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Use key' }).click();
  }
}

async function settledCost(): Promise<number> {
  const cost = page.locator('[data-cost]');
  await cost.waitFor();
  await expect.poll(() => page.locator('.price').textContent()).not.toContain('Pricing');
  return Number(await cost.getAttribute('data-cost'));
}

describe('the explorer in Chromium', () => {
  it("builds an ERC-20 query by clicking, prices it as calculate-cost does, and runs it to the JSON API's rows", async () => {
    await page.goto(`${server.url}/explore`);
    await page.getByLabel('API key').fill(server.key);
    await shot('1-key');
    await page.getByRole('button', { name: 'Use key' }).click();
    await pick('evm', 'erc20', 'transfer', 'raw');
    await param('network').selectOption('ETH');
    await param('token').fill('USDC');
    // Coverage of the dataset on ETH offers range shortcuts.
    const coverage = (await api<{ coverage: { dataset: string; newest: { block: number } }[] }>('/v1/coverage?family=evm&protocol=erc20&network=ETH')).body.coverage;
    const newest = coverage.find((c) => c.dataset === 'evm/erc20/transfer')!.newest.block;
    await page.getByRole('button', { name: 'last 1,000 blocks' }).click();
    expect(await param('block_end').inputValue()).toBe(String(newest));
    expect(await param('block_start').inputValue()).toBe(String(newest - 999));
    // Then a range typed by hand.
    await param('block_start').fill(String(ETH0));
    await param('block_end').fill(String(ETH0 + 1_500));
    await param('since').waitFor();
    expect(await param('since').isDisabled()).toBe(true);
    const cost = await settledCost();
    const target = sharedTarget();
    expect(normalized(target)).toBe(normalized(`/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=${ETH0}&block_end=${ETH0 + 1_500}`));
    const priced = await priceOf(target);
    expect(priced.status).toBe(200);
    expect(cost).toBe(priced.body.cost);
    expect(await page.locator('.price').textContent()).toContain('blocks');
    await shot('2-erc20-priced');

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const summary = page.getByTestId('result-summary');
    await summary.waitFor();
    const rows = await api<{ count: number; events: Record<string, unknown>[] }>(target);
    expect(rows.body.count).toBeGreaterThan(50);
    expect(Number(await summary.locator('[data-rows]').getAttribute('data-rows'))).toBe(rows.body.count);
    expect(Number(await summary.locator('[data-charged]').getAttribute('data-charged'))).toBe(cost);
    expect(await page.locator('table.rows caption').textContent()).toContain(`${rows.body.count.toLocaleString('en-US')} rows`);
    // The first rows on screen are the API's first rows, column by column.
    const headers = await page.locator('table.rows thead th').allTextContents();
    expect(headers).toEqual(Object.keys(rows.body.events[0]!));
    const shown = await page.locator('table.rows tbody tr[aria-rowindex]').evaluateAll((trs) => trs.slice(0, 10).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(shown).toEqual(rows.body.events.slice(0, 10).map((e) => headers.map((h) => (e[h] === null ? '' : String(e[h])))));
    await shot('3-erc20-rows');

    // Sorting by amount, descending, puts the API's largest amount first.
    const amount = page.getByRole('button', { name: 'amount', exact: true });
    await amount.click();
    await amount.click();
    expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('amount');
    const largest = Math.max(...rows.body.events.map((e) => Number(e.amount)));
    const firstAmount = await page.locator('table.rows tbody tr[aria-rowindex="2"] td').nth(headers.indexOf('amount')).textContent();
    expect(Number(firstAmount)).toBe(largest);
  });

  it("draws an aggregate with pivots as a chart whose points are the API's buckets", async () => {
    await openExplorer();
    await pick('evm', 'dex_v3', 'swap', 'aggregate');
    await param('network').selectOption('ETH');
    await param('symbol0').fill('WETH');
    await param('symbol1').fill('USDC');
    await param('fee').selectOption('500');
    await param('block_start').fill(String(ETH0));
    await param('block_end').fill(String(ETH0 + 2_000));
    await param('group_by').selectOption('time');
    await param('period').fill('1h');
    await settledCost();
    const target = sharedTarget();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('.chart canvas').first().waitFor();
    const buckets = (await api<{ events: Record<string, number | string | null>[] }>(target)).body.events;
    expect(buckets.length).toBeGreaterThan(3);
    const columns = Object.keys(buckets[0]!).filter((c) => !['time_start', 'time_end'].includes(c));
    expect(columns).toEqual(expect.arrayContaining(['agg_WETH_sold', 'agg_WETH_bought', 'agg_USDC_sold', 'agg_USDC_bought', 'count']));
    const plotted = await page.locator('.chart').evaluate((el) => {
      const u = (el as unknown as { uplot: { data: (number | null)[][]; series: { label?: string }[] } }).uplot;
      return { data: u.data, labels: u.series.map((s) => s.label ?? '') };
    });
    expect(plotted.labels.slice(1)).toEqual(columns);
    expect(plotted.data[0]).toEqual(buckets.map((b) => Date.parse(String(b.time_start)) / 1000));
    columns.forEach((c, i) => {
      expect(plotted.data[i + 1], c).toEqual(buckets.map((b) => b[c]));
    });
    // Its text alternative names the buckets, and a series can be hidden.
    expect(await page.locator('#chart-summary').textContent()).toContain(`${buckets.length} buckets`);
    await page.getByRole('checkbox', { name: 'count' }).uncheck();
    // The chart is rebuilt in an effect after the render, so the new series set shows up a moment after the click.
    const countShown = () => page.locator('.chart').evaluate((el) => (el as unknown as { uplot?: { series: { show: boolean }[] } }).uplot?.series.at(-1)?.show);
    await expect.poll(countShown).toBe(false);
    // Hovering the plot shows the bucket's values in the live legend.
    const box = (await page.locator('.chart .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator('.chart .u-legend .u-value').first().textContent()).not.toBe('--');
    await shot('4-dex-aggregate-chart');
    // The README's picture: price, run summary and chart in one view.
    await page.locator('#price-h').evaluate((el) => el.scrollIntoView());
    const inView = (await page.locator('.chart .u-over').boundingBox())!;
    await page.mouse.move(inView.x + inView.width * 0.6, inView.y + inView.height / 2);
    await page.screenshot({ path: path.join(ARTIFACTS, 'readme-explorer.png') });
  });

  it("shows the API's message at the field of a bad range, and charges nothing", async () => {
    await openExplorer();
    const before = await usedBlocks();
    await pick('evm', 'erc20', 'transfer', 'raw');
    await param('network').selectOption('ETH');
    await param('token').fill('USDC');
    await param('block_start').fill(String(ETH0 + 500));
    await param('block_end').fill(String(ETH0 + 100));
    const error = page.locator('[data-param="block_end"] .error');
    await error.waitFor();
    const api400 = await priceOf(sharedTarget());
    expect(api400.status).toBe(400);
    expect(await error.textContent()).toBe(api400.body.error);
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await param('block_end').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).waitFor();
    await error.waitFor();
    expect(await page.getByTestId('result-summary').count()).toBe(0);
    expect(await usedBlocks()).toBe(before);
    await shot('5-bad-range');

    // Mutually exclusive filters: the second is disabled while the first is set.
    await param('involving').fill('0x0000000000000000000000000000000000000001');
    expect(await param('sender').isDisabled()).toBe(true);
  });

  it('restores a query from a shared ?q= address, with its cost and a Run button', async () => {
    const target = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH0 + 100}&block_end=${ETH0 + 1_300}&format=csv`;
    await openExplorer(target);
    await page.getByRole('button', { name: 'Run', exact: true }).waitFor();
    expect(await page.getByLabel('Family', { exact: true }).inputValue()).toBe('evm');
    expect(await page.getByLabel('Protocol', { exact: true }).inputValue()).toBe('erc20');
    expect(await param('network').inputValue()).toBe('ETH');
    expect(await param('token').inputValue()).toBe('USDT');
    expect(await param('block_start').inputValue()).toBe(String(ETH0 + 100));
    expect(await param('block_end').inputValue()).toBe(String(ETH0 + 1_300));
    expect(await param('format').inputValue()).toBe('csv');
    expect(await settledCost()).toBe((await priceOf(target)).body.cost);
    expect(normalized(sharedTarget())).toBe(normalized(target));
    // Not run until asked.
    expect(await page.getByTestId('result-summary').count()).toBe(0);
    // The same query as code.
    expect(await page.locator('.snippet pre').first().textContent()).toContain(`${server.url}${sharedTarget()}`);
    const ts = await page.locator('.snippet pre').nth(1).textContent();
    expect(ts).toContain(`cq.evmErc20Transfer({ network: 'ETH', block_start: ${ETH0 + 100}, block_end: ${ETH0 + 1_300}, format: 'csv', token: 'USDT' })`);
    const py = await page.locator('.snippet pre').nth(2).textContent();
    expect(py).toContain(`c.events("evm/erc20/transfer", network="ETH", block_start=${ETH0 + 100}, block_end=${ETH0 + 1_300}, token="USDT")`);
    await shot('6-shared-query');

    // Downloads: the same query as a CSV file, and as a link=true URL that needs no key.
    const api = await fetch(`${server.url}${target}`, { headers: { 'x-api-key': server.key } }).then((r) => r.text());
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe(api);
    await page.getByRole('button', { name: 'Get link' }).click();
    const link = await page.getByTestId('link-url').getAttribute('href');
    expect(link).toMatch(/\/v1\/links\//);
    expect(await fetch(link!).then((r) => r.text())).toBe(api);
    await shot('7-downloads');
  });

  it('Export…: shows the query price, starts the export as it, and lists its files once done, each downloaded with the manifest sha256 and charged the price', async () => {
    const target = `/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=${ETH0}&block_end=${ETH0 + 999}`;
    await openExplorer(target);
    const price = (await priceOf(target)).body.cost;
    expect(await settledCost()).toBe(price);
    const before = await usedBlocks();
    await page.getByRole('button', { name: 'Export…' }).click();
    const panel = page.getByTestId('export-panel');
    await page.getByLabel('File format').selectOption('csv');
    await page.getByLabel('Blocks per file').fill('250');
    expect(Number(await panel.locator('[data-export-cost]').getAttribute('data-export-cost'))).toBe(price);
    // A full-page screenshot moves the page under the pointer (Chromium restores the scroll on the next focus), so shots come after clicks.
    await page.getByRole('button', { name: 'Start export' }).click();
    // Either the progress bar is seen, or the export was already done at the first look.
    await page.locator('[data-testid="export-progress"], [data-testid="export-done"], [data-testid="export-error"]').first().waitFor();
    expect(await page.getByTestId('export-error').allTextContents()).toEqual([]);
    const done = page.getByTestId('export-done');
    await done.waitFor({ timeout: 60_000 });
    const id = await done.getAttribute('data-export-id');
    const manifest = (await api<{ files: { name: string; sha256: string }[] }>(`/v1/exports/${id}/manifest.json`)).body;
    const links = page.getByTestId('export-files').locator('a');
    expect(await links.allTextContents()).toEqual(manifest.files.map((f) => f.name));
    expect(manifest.files.map((f) => f.name)).toEqual([0, 1, 2, 3].map((i) => `part-${ETH0 + 250 * i}-${ETH0 + 250 * i + 249}.csv`));
    const [download] = await Promise.all([page.waitForEvent('download'), links.nth(1).click()]);
    expect(download.suggestedFilename()).toBe(manifest.files[1]!.name);
    const bytes = fs.readFileSync((await download.path())!);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.files[1]!.sha256);
    expect((await usedBlocks()) - before).toBe(price);
    await shot('9-export-done');
  });
});
