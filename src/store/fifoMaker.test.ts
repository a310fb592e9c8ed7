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

describe('createFifoMaker', () => {
  it('creates owner-only named pipes, many at once, in order', async () => {
    const maker = createFifoMaker();
    const paths = Array.from({ length: 20 }, (_, i) => path.join(dir, `p${i}`));
    await Promise.all(paths.map((p) => maker.make(p)));
    for (const p of paths) {
      const st = fs.statSync(p);
      expect(st.isFIFO()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
    }
    await maker.close();
  });

  it('reports a path it cannot create', async () => {
    const maker = createFifoMaker();
    await maker.make(path.join(dir, 'taken'));
    await expect(maker.make(path.join(dir, 'taken'))).rejects.toThrow();
    await maker.close();
  });

  it('still creates pipes after the helper died', async () => {
    const maker = createFifoMaker();
    await maker.make(path.join(dir, 'early'));
    const helper = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'mkfifo'])
      .toString()
      .trim()
      .split('\n');
    for (const pid of helper) process.kill(Number(pid), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
    await maker.make(path.join(dir, 'late'));
    expect(fs.statSync(path.join(dir, 'late')).isFIFO()).toBe(true);
    await await maker.close();
  });

  it('makes nothing once closed, so its folder can be removed right away', async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-fifo-close-'));
    const maker = createFifoMaker();
    // A pool refilling in the background while the maker closes: the race a store's close() meets.
    createFifoPool(maker, own, 8);
    await await maker.close();
    fs.rmSync(own, { recursive: true });
    await expect(maker.make(path.join(own, 'after'))).rejects.toThrow(/closed/);
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(own)).toBe(false);
  });
});

describe('createFifoPool', () => {
  it('hands out each fifo once, made ahead of time, and keeps making more', async () => {
    const maker = createFifoMaker();
    const pool = createFifoPool(maker, dir, 2);
    const taken = [];
    for (let i = 0; i < 6; i++) taken.push(await pool.take());
    expect(new Set(taken).size).toBe(6);
    for (const p of taken) {
      expect(path.dirname(p)).toBe(dir);
      expect(fs.statSync(p).isFIFO()).toBe(true);
    }
    // The pool refills in the background: ready ones wait beside the taken ones.
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.readdirSync(dir).length).toBe(6 + 2);
    await maker.close();
  });
});
