/**
 * The store takes what a server derives from its --memory-limit: the engine's
 * memory_limit and the high-water mark of each streamed export's buffer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeBody } from '../../src/output/encode.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';

let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

describe('store memory settings', () => {
  it('sets the engine memory_limit it is given', async () => {
    store = await createStore({ dataDir: null, memoryLimit: '200MiB' });
    const [row] = await engineSql(store).all<{ limit: string }>("SELECT current_setting('memory_limit') AS limit");
    expect(row?.limit).toBe('200.0 MiB');
  });

  it('streams an export through a buffer of the size it is given', async () => {
    store = await createStore({ dataDir: null, streamBufferBytes: 96 * 1024 });
    const exp = await store.copyToStream('SELECT range AS n FROM range(100000)', {}, 'csv');
    expect(exp.stream.readableHighWaterMark).toBe(96 * 1024);
    let bytes = 0;
    for await (const chunk of exp.stream) bytes += Buffer.byteLength(chunk);
    await exp.done;
    expect(bytes).toBeGreaterThan(100000);
  });

  it("wraps JSON rows in an envelope whose buffer is the export's size", async () => {
    store = await createStore({ dataDir: null, streamBufferBytes: 96 * 1024 });
    const exp = await store.copyToStream('SELECT range AS n FROM range(1000)', {}, 'json');
    const { body } = await encodeBody(exp, 'json', 'rows');
    expect(body.readableHighWaterMark).toBe(96 * 1024);
    let text = '';
    for await (const chunk of body) text += String(chunk);
    expect(JSON.parse(text)).toMatchObject({ status: 'success', count: 1000 });
  });
});
