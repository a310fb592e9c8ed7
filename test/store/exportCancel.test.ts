/**
 * A streamed export given up by its reader (a client that left) stops the
 * engine and leaves nothing behind, however early it is given up; closing the
 * store stops the exports still running before it removes their pipes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';

/** Some 39 MB of CSV: long enough that a stop that does not land is seen. */
const LARGE = 'SELECT range AS n FROM range(5000000)';

let tmp: string;
let store: Store | null = null;

/** A store whose pipes' folder is made in a folder of this test's own, so that what stays in it can be seen. */
async function storeInOwnTmp(): Promise<Store> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-cancel-'));
  const was = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    return await createStore({ dataDir: null, threads: 2, exportLanes: { light: 1, heavy: 1 } });
  } finally {
    if (was === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = was;
  }
}

/** Every entry under `dir` that is not a fifo (one removed while listed is not). */
function notFifos(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => {
    const st = fs.statSync(path.join(dir, f), { throwIfNoEntry: false });
    return st !== undefined && !st.isFIFO() && !st.isDirectory();
  });
}

afterEach(async () => {
  await store?.close();
  store = null;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('an export given up by its reader', () => {
  it('stops the engine even when given up before the engine began, leaves no file behind, and frees its lane', async () => {
    store = await storeInOwnTmp();
    expect(fs.readdirSync(tmp)).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      const e = await store.copyToStream(LARGE, {}, 'csv', { lane: 'heavy' });
      e.cancel();
      // Not run to its end: an interrupt sent before the query began used to be lost.
      await expect(e.done).rejects.toThrow(/interrupt/i);
    }
    // A COPY that opened its fifo's path after the fifo was removed wrote the whole result there as a regular file.
    expect(notFifos(tmp)).toEqual([]);
    // The one heavy slot is free again.
    const next = await store.copyToStream('SELECT 1 AS one', {}, 'csv', { lane: 'heavy' });
    next.stream.resume();
    expect(await next.done).toBe(1);
  });

  it('stops with the store: closing it ends the exports still running and removes their folder', async () => {
    store = await storeInOwnTmp();
    const e = await store.copyToStream(LARGE, {}, 'csv', { lane: 'heavy' });
    const outcome = e.done.then(
      () => 'finished',
      () => 'stopped',
    );
    // A reader that took one chunk and stopped reading: the engine waits on a full pipe.
    await new Promise<void>((resolve) => e.stream.once('data', () => resolve()));
    e.stream.pause();
    await store.close();
    store = null;
    expect(await outcome).toBe('stopped');
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});
