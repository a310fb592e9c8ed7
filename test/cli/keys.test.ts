/** `chainq keys create|list|revoke|set-plan|usage` against a real data directory. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedBackend } from '../../src/metering/embeddedBackend.ts';
import { createStore } from '../../src/store/openStore.ts';
import { ROOT, writePlansFile } from '../helpers/metered.ts';

const execFileAsync = promisify(execFile);
let dir: string;

const chainq = async (...args: string[]) => {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [path.join(ROOT, 'bin/chainq.js'), ...args, '--data', dir], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-keys-'));
  writePlansFile(dir, { team: { requests_per_minute: 100, monthly_blocks: 5000 } });
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('chainq keys', () => {
  let prefix: string;
  let id: string;

  it('create refuses a plan that is not configured and names the ones that are', async () => {
    const r = await chainq('keys', 'create', '--plan', 'gold');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown plan 'gold'.*team: 100\/min, 5,000 blocks\/month/);
  });

  it('create prints the key once, on its own last line; list shows its plan', async () => {
    const r = await chainq('keys', 'create', '--plan', 'team', '--name', 'ci');
    expect(r.code).toBe(0);
    const key = r.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^cq_[0-9A-Za-z]{32}$/);
    prefix = key.slice(0, 7);
    const list = JSON.parse((await chainq('keys', 'list', '--json')).stdout) as { id: string; prefix: string; plan: string }[];
    expect(list).toEqual([expect.objectContaining({ prefix, plan: 'team' })]);
    id = list[0]!.id;
  });

  it('set-plan moves the key; an unknown plan is refused', async () => {
    expect((await chainq('keys', 'set-plan', prefix, 'pro')).code).toBe(0);
    expect((await chainq('keys', 'set-plan', prefix, 'gold')).code).toBe(1);
    const list = JSON.parse((await chainq('keys', 'list', '--json')).stdout) as { plan: string }[];
    expect(list[0]!.plan).toBe('pro');
    expect((await chainq('keys', 'set-plan', prefix, 'team')).code).toBe(0);
  });

  it('usage shows blocks and requests per key and month, with the budget left', async () => {
    const store = await createStore({ dataDir: dir, threads: 1 });
    const backend = createEmbeddedBackend(store);
    for (const [rid, period, cost] of [
      ['a', '2025-11', 700],
      ['b', '2025-12', 100],
      ['c', '2025-12', 250],
    ] as const) {
      const r = { id: rid, keyId: id, period, cost, at: Date.parse(`${period}-05T00:00:00Z`) };
      await backend.reserve(r, null);
      await backend.commit(r);
    }
    await backend.close();
    await store.close();

    const dec = JSON.parse((await chainq('keys', 'usage', '--month', '2025-12', '--json')).stdout);
    expect(dec).toEqual([{ key: prefix, id, plan: 'team', month: '2025-12', requests: 2, blocks: 350, budget: 5000, remaining: 4650 }]);
    const all = JSON.parse((await chainq('keys', 'usage', prefix, '--all-months', '--json')).stdout) as { month: string }[];
    expect(all.map((r) => r.month)).toEqual(['2025-11', '2025-12']);
    const jan = JSON.parse((await chainq('keys', 'usage', '--month', '2026-01', '--json')).stdout);
    expect(jan).toEqual([expect.objectContaining({ month: '2026-01', requests: 0, blocks: 0, remaining: 5000 })]);
    const text = await chainq('keys', 'usage', '--month', '2025-12');
    expect(text.stdout).toContain(`${prefix}…  2025-12  team`);
    expect((await chainq('keys', 'usage', '--month', '12-2025')).stderr).toMatch(/--month must look like 2025-12/);
  });

  it('revoke by prefix', async () => {
    expect((await chainq('keys', 'revoke', prefix)).code).toBe(0);
    const list = JSON.parse((await chainq('keys', 'list', '--json')).stdout) as { revokedAt: string | null }[];
    expect(list[0]!.revokedAt).not.toBeNull();
  });
});
