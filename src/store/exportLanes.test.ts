import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from './openStore.ts';
import type { CopyStream, Store } from './types.ts';

/** Far more than a pipe holds: an export nobody reads keeps its slot. */
const LARGE = 'SELECT range AS n FROM range(5000000)';
const SMALL = 'SELECT 42 AS answer';

async function readAll(e: CopyStream): Promise<string> {
  let text = '';
  for await (const chunk of e.stream) text += String(chunk);
  await e.done;
  return text;
}

/** Resolves with the value, or with 'waiting' if it has not settled within `ms`. */
async function settledWithin<T>(p: Promise<T>, ms: number): Promise<T | 'waiting'> {
  return Promise.race([p, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), ms))]);
}

let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe('export lanes', () => {
  it('lets a small export run while heavy ones fill their lane, and queues a heavy one behind them', async () => {
    store = await createStore({ dataDir: null, threads: 2, exportLanes: { light: 2, heavy: 1 } });
    const heavy = await store.copyToStream(LARGE, {}, 'csv', { lane: 'heavy' });
    try {
      const secondHeavy = store.copyToStream(LARGE, {}, 'csv', { lane: 'heavy' });
      expect(await settledWithin(secondHeavy, 300)).toBe('waiting');
      const small = await store.copyToStream(SMALL, {}, 'csv', { lane: 'light' });
      expect(await readAll(small)).toBe('answer\n42\n');
      // Once the first heavy export ends, the queued one starts.
      heavy.cancel();
      const next = await settledWithin(secondHeavy, 5_000);
      expect(next).not.toBe('waiting');
      (next as CopyStream).cancel();
    } finally {
      heavy.cancel();
    }
  });

  it('with fair scheduling off, a small export waits behind the heavy ones in the one queue', async () => {
    store = await createStore({ dataDir: null, threads: 2, exportLanes: { light: 1, heavy: null } });
    const heavy = await store.copyToStream(LARGE, {}, 'csv', { lane: 'heavy' });
    try {
      const small = store.copyToStream(SMALL, {}, 'csv', { lane: 'light' });
      expect(await settledWithin(small, 300)).toBe('waiting');
      heavy.cancel();
      expect(await readAll(await small)).toBe('answer\n42\n');
    } finally {
      heavy.cancel();
    }
  });
});
