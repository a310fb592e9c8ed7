/**
 * `chainq serve --memory-limit` as an operator gives it: the server splits
 * the bound at start and logs the split ("memory budget"; the store's own
 * test, test/store/memoryBudget.test.ts, checks that the engine takes the
 * limit it is given); a value that is not a size, or below what the server
 * holds by itself, stops it with a one-line error before anything opens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryBudget } from '../../src/cli/memoryLimit.ts';
import { defaultLaneLimits } from '../../src/store/exportLanes.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-memory-limit-'));
  dirs.push(d);
  return d;
}

describe('chainq serve --memory-limit', () => {
  it('derives the engine limit and the stream buffers from the bound, and logs the split', async () => {
    const threads = 2;
    const cli = spawnCli(['serve', '--data', dataDir(), '--port', '0', '--no-demo', '--threads', String(threads), '--memory-limit', '1GiB']);
    try {
      const line = await cli.waitFor((l) => l.msg === 'memory budget');
      const lanes = defaultLaneLimits(threads);
      const expected = memoryBudget(1024 ** 3, lanes.light + (lanes.heavy ?? 0));
      expect(line).toMatchObject({ memoryLimit: 1024 ** 3, engineMemoryLimit: expected.engineBytes, streamBuffer: expected.streamBufferBytes });
    } finally {
      cli.child.kill('SIGTERM');
      await cli.done;
    }
  });

  it.each([
    ['100MiB', /at least 320MiB/],
    ['lots', /expected a size such as 640MiB/],
  ])('refuses --memory-limit %s with a one-line error and exit code 1', async (value, message) => {
    const r = await runCli(['serve', '--data', dataDir(), '--port', '0', '--no-demo', '--memory-limit', value]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).not.toMatch(/listening/);
  });
});
