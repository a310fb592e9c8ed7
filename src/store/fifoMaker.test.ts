import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFifoMaker, createFifoPool } from './fifoMaker.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-fifo-test-'));
afterEach(() => {
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
});
const hex = (i: number) => i.toString(16).padStart(4, '0');

describe('createFifoMaker', () => {
  it('creates owner-only named pipes, many per call and many calls at once, in its folder', async () => {
    const maker = createFifoMaker(dir);
    const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 4 }, (_, i) => hex(b * 4 + i)));
    await Promise.all(batches.map((names) => maker.make(names)));
    for (const name of batches.flat()) {
      const st = fs.statSync(path.join(dir, name));
      expect(st.isFIFO()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
    }
    await maker.close();
  });

  it('reports names it cannot create, and refuses names that are not lowercase hex', async () => {
    const maker = createFifoMaker(dir);
    await maker.make(['aa']);
    await expect(maker.make(['aa'])).rejects.toThrow();
    await expect(maker.make(['../x'])).rejects.toThrow(/hex/);
    await expect(maker.make(['a b'])).rejects.toThrow(/hex/);
    expect(fs.readdirSync(dir)).toEqual(['aa']);
    await maker.close();
  });

  it('still creates pipes after the helper died', async () => {
    const maker = createFifoMaker(dir);
    await maker.make(['e0']);
    const helper = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'mkfifo'])
      .toString()
      .trim()
      .split('\n');
    for (const pid of helper) process.kill(Number(pid), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
    await maker.make(['e1', 'e2']);
    expect(fs.statSync(path.join(dir, 'e2')).isFIFO()).toBe(true);
    await maker.close();
  });

  it('makes nothing once closed, so its folder can be removed right away', async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-fifo-close-'));
    const maker = createFifoMaker(own);
    // A pool refilling in the background while the maker closes: the race a store's close() meets.
    createFifoPool(maker, own, { ready: 8, batch: 2 });
    await maker.close();
    fs.rmSync(own, { recursive: true });
    await expect(maker.make(['ab'])).rejects.toThrow(/closed/);
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(own)).toBe(false);
  });
});

describe('createFifoPool', () => {
  it('hands out each fifo once, made ahead of time in batches, and keeps making more', async () => {
    const maker = createFifoMaker(dir);
    const pool = createFifoPool(maker, dir, { ready: 4, batch: 2 });
    const taken = [];
    for (let i = 0; i < 9; i++) taken.push(await pool.take());
    expect(new Set(taken).size).toBe(9);
    for (const p of taken) {
      expect(path.dirname(p)).toBe(dir);
      expect(fs.statSync(p).isFIFO()).toBe(true);
    }
    // The pool refills in the background (a helper process, so its time varies), up to `ready` waiting beside the taken ones.
    await expect.poll(() => fs.readdirSync(dir).length - 9, { timeout: 10_000 }).toBe(4);
    await maker.close();
  });
});
