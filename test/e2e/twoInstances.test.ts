/**
 * Two `chainq serve --redis` processes sharing one data directory (opened
 * read-only by both) and one real redis-server enforce one per-minute limit
 * and one monthly budget per key.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { secondsToWindowEnd } from '../../src/metering/period.ts';
import { createDemoStore, ROOT, SMALL_COST, SMALL_QUERY, spawnServer, writePlansFile, type ServerProcess } from '../helpers/metered.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';

const execFileAsync = promisify(execFile);

let dir: string;
let redis: RedisServer;
let a: ServerProcess;
let b: ServerProcess;
const keys: Record<string, string> = {};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-two-'));
  const store = await createDemoStore(dir);
  writePlansFile(dir, {
    ten: { requests_per_minute: 10, monthly_blocks: 1_000_000 },
    race: { requests_per_minute: null, monthly_blocks: 7 * SMALL_COST + 50 },
  });
  for (const [name, plan] of [
    ['ten', 'ten'],
    ['rate', 'ten'],
    ['race', 'race'],
  ] as const)
    keys[name] = (await createKey(store, { plan })).key;
  await store.close();
  redis = await startRedis();
  const args = ['--data', dir, '--redis', redis.url];
  [a, b] = await Promise.all([spawnServer(args), spawnServer(args)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const get = (s: ServerProcess, url: string, key: string) => fetch(`${s.url}${url}`, { headers: { 'x-api-key': key } });

describe('two server processes, one Redis', () => {
  it('both serve data from the shared, read-only store', async () => {
    const [ra, rb] = await Promise.all([get(a, SMALL_QUERY, keys.ten!), get(b, SMALL_QUERY, keys.ten!)]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(await ra.text()).toBe(await rb.text());
  });

  it('enforce one per-minute limit: of 16 requests alternating between them, exactly 10 pass', async () => {
    // Start well inside one window, so that the minute cannot turn during the burst.
    if (secondsToWindowEnd(Date.now()) < 15) await new Promise((r) => setTimeout(r, secondsToWindowEnd(Date.now()) * 1000 + 100));
    const key = keys.rate!;
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await get(i % 2 ? b : a, '/v1/protocols', key)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(6).fill(429));
    const limited = await get(a, '/v1/protocols', key);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('10');
  });

  it('enforce one monthly budget: of 50 concurrent requests over both, exactly 7 pass', async () => {
    const key = keys.race!;
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => get(i % 2 ? a : b, SMALL_QUERY, key).then(async (r) => ({ status: r.status, body: await r.text() }))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(7);
    const refused = responses.filter((r) => r.status === 403);
    expect(refused).toHaveLength(43);
    for (const r of refused) expect(JSON.parse(r.body)).toMatchObject({ code: 'quota_exceeded', remaining: 50, cost: SMALL_COST });
    // Each server sees what the other charged.
    for (const s of [a, b]) expect((await get(s, '/v1/protocols', key)).headers.get('x-ratelimit-remaining')).toBe('50');
  });

  it('`chainq keys usage --redis` and `keys list` read while both servers run', async () => {
    const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, 'bin/chainq.js'), 'keys', 'usage', keys.race!.slice(0, 7), '--data', dir, '--redis', redis.url, '--json'], { cwd: ROOT });
    const rows = JSON.parse(stdout) as { plan: string; requests: number; blocks: number; remaining: number }[];
    expect(rows).toEqual([expect.objectContaining({ plan: 'race', requests: 7, blocks: 700, remaining: 50 })]);
    const list = await execFileAsync(process.execPath, [path.join(ROOT, 'bin/chainq.js'), 'keys', 'list', '--data', dir, '--json'], { cwd: ROOT });
    expect(JSON.parse(list.stdout)).toHaveLength(3);
  });
});
