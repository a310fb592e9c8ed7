/**
 * A file export given a throttle (an export job's partition) writes the same
 * file as the engine's own COPY to a file, writes nothing more while the
 * throttle gives no turn, finishes once turns come again, and when the
 * throttle fails it stops the engine, leaves its lane free and fails. Its
 * bytes pass through a tap on their way, the file's own bytes in order. On
 * chDB, it waits for its turn before its query starts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import type { ExportThrottle } from '../../src/store/exportLanes.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';

/** Some 30 MB of CSV, several MB of Parquet: many pieces through the pipe. */
const LARGE = 'SELECT range AS n, md5(range::VARCHAR) AS h FROM range(600000) ORDER BY n';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-throttle-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let store: Store;
beforeEach(async () => {
  store = await createStore({ dataDir: null, threads: 2, exportLanes: { light: 1, heavy: 1 } });
});
afterEach(async () => {
  await store.close();
});

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const always: ExportThrottle = { turn: () => Promise.resolve() };

/** A throttle that gives turns only while open; counts the turns asked for. */
function gate() {
  let open = false;
  let asked = 0;
  const waiting: (() => void)[] = [];
  const throttle: ExportThrottle = {
    turn() {
      asked++;
      if (open) return Promise.resolve();
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
  return {
    throttle,
    asked: () => asked,
    open() {
      open = true;
      for (const w of waiting.splice(0)) w();
    },
  };
}

describe('a throttled file export', () => {
  it.each(['parquet', 'csv'] as const)('writes the same %s file and row count as the engine writing the file itself', async (format) => {
    const own = path.join(dir, `own.${format}`);
    const throttled = path.join(dir, `throttled.${format}`);
    expect(await store.copyToFile(LARGE, {}, format, own, { lane: 'heavy' })).toBe(600000);
    expect(await store.copyToFile(LARGE, {}, format, throttled, { lane: 'heavy', throttle: always })).toBe(600000);
    expect(sha(throttled)).toBe(sha(own));
    // A snapshot's export (as an export job's partition runs) too.
    const snap = await store.snapshot();
    const fromSnap = path.join(dir, `snap.${format}`);
    try {
      expect(await snap.copyToFile(LARGE, {}, format, fromSnap, { lane: 'heavy', throttle: always })).toBe(600000);
    } finally {
      await snap.close();
    }
    expect(sha(fromSnap)).toBe(sha(own));
  });

  it.each(['parquet', 'csv'] as const)('hands its tap every byte of the %s file in order; the engine writing the file itself hands it none', async (format) => {
    const file = path.join(dir, `tapped.${format}`);
    const tapped = createHash('sha256');
    let bytes = 0;
    const tap = (piece: Uint8Array) => {
      tapped.update(piece);
      bytes += piece.byteLength;
    };
    expect(await store.copyToFile(LARGE, {}, format, file, { lane: 'heavy', throttle: always, tap })).toBe(600000);
    expect(bytes).toBe(fs.statSync(file).size);
    expect(tapped.digest('hex')).toBe(sha(file));
    const own = path.join(dir, `untapped.${format}`);
    let seen = 0;
    await store.copyToFile(LARGE, {}, format, own, {
      lane: 'heavy',
      tap: () => {
        seen++;
      },
    });
    expect(seen).toBe(0);
  });

  it('writes nothing while no turn is given, and finishes the file once turns come', async () => {
    const file = path.join(dir, 'held.csv');
    const g = gate();
    let settled = false;
    const done = store.copyToFile(LARGE, {}, 'csv', file, { lane: 'heavy', throttle: g.throttle }).finally(() => {
      settled = true;
    });
    while (g.asked() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The first piece waits for its turn: nothing is in the file, the export has not ended, one turn was asked for.
    expect(settled).toBe(false);
    expect(fs.statSync(file).size).toBe(0);
    expect(g.asked()).toBe(1);
    g.open();
    expect(await done).toBe(600000);
    const own = path.join(dir, 'held-own.csv');
    await store.copyToFile(LARGE, {}, 'csv', own);
    expect(sha(file)).toBe(sha(own));
  });

  it('stops when the store closes while it waits for a turn, instead of holding the close', async () => {
    const g = gate();
    const file = path.join(dir, 'closed.csv');
    const done = store.copyToFile(LARGE, {}, 'csv', file, { lane: 'heavy', throttle: g.throttle });
    done.catch(() => undefined);
    while (g.asked() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.close();
    await expect(done).rejects.toThrow('the export was stopped');
    // Reopened for afterEach's close.
    store = await createStore({ dataDir: null, threads: 2, exportLanes: { light: 1, heavy: 1 } });
  });

  it('fails when its throttle fails, stops the engine and frees its lane', async () => {
    const failing: ExportThrottle = { turn: () => Promise.reject(new Error('the throttle broke')) };
    await expect(store.copyToFile(LARGE, {}, 'parquet', path.join(dir, 'failed.parquet'), { lane: 'heavy', throttle: failing })).rejects.toThrow('the throttle broke');
    // The one heavy slot is free again.
    expect(await store.copyToFile('SELECT 1 AS one', {}, 'csv', path.join(dir, 'next.csv'), { lane: 'heavy', throttle: always })).toBe(1);
  });
});

/**
 * On chDB the engine runs one query at a time and hands its result over
 * whole (a small query sent during a long one answers after it), so a
 * throttled export cannot be paused once its query began: it gives way before
 * its query starts.
 */
describe('a throttled file export on chDB', () => {
  const LARGE_CH = 'SELECT number AS n, hex(MD5(toString(number))) AS h FROM numbers(600000) ORDER BY n';
  let ch: ClickHouseStore;
  beforeAll(async () => {
    ch = await createClickHouseStore({ target: { engine: 'chdb', dir: path.join(dir, 'chdb') }, database: 'throttle' });
  });
  afterAll(async () => {
    await ch?.close();
  });

  it('starts its query only once given a turn, then writes the same file as without a throttle', async () => {
    const file = path.join(dir, 'ch-held.csv');
    const g = gate();
    let settled = false;
    const done = ch.copyToFile(LARGE_CH, {}, 'csv', file, { lane: 'heavy', throttle: g.throttle }).finally(() => {
      settled = true;
    });
    await expect.poll(() => g.asked(), { timeout: 5000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
    // The engine is free meanwhile: nothing of the export runs in it.
    const running = await ch.query<{ n: number }>("SELECT count() AS n FROM system.processes WHERE query LIKE '%numbers(600000)%' AND query NOT LIKE '%system.processes%'");
    expect(Number(running[0]?.n)).toBe(0);
    g.open();
    expect(await done).toBe(600000);
    const own = path.join(dir, 'ch-own.csv');
    expect(await ch.copyToFile(LARGE_CH, {}, 'csv', own)).toBe(600000);
    expect(sha(file)).toBe(sha(own));
  });

  it('hands its tap every byte of the file in order, throttled or not', async () => {
    for (const throttle of [always, undefined]) {
      const file = path.join(dir, `ch-tapped-${throttle ? 'throttled' : 'free'}.parquet`);
      const tapped = createHash('sha256');
      let bytes = 0;
      const tap = (piece: Uint8Array) => {
        tapped.update(piece);
        bytes += piece.byteLength;
      };
      expect(await ch.copyToFile(LARGE_CH, {}, 'parquet', file, { lane: 'heavy', tap, ...(throttle ? { throttle } : {}) })).toBe(600000);
      expect(bytes).toBe(fs.statSync(file).size);
      expect(tapped.digest('hex')).toBe(sha(file));
    }
  });

  it('fails when its throttle fails, without running its query', async () => {
    const failing: ExportThrottle = { turn: () => Promise.reject(new Error('the throttle broke')) };
    const file = path.join(dir, 'ch-failed.parquet');
    await expect(ch.copyToFile(LARGE_CH, {}, 'parquet', file, { lane: 'heavy', throttle: failing })).rejects.toThrow('the throttle broke');
    expect(fs.existsSync(file)).toBe(false);
    expect(await ch.copyToFile('SELECT 1 AS one', {}, 'csv', path.join(dir, 'ch-next.csv'), { lane: 'heavy', throttle: always })).toBe(1);
  });
});
