/**
 * An in-memory DuckDB store opened as a copy of a database file (the tests'
 * demo store starts that way): it holds the file's rows, stays in memory, and
 * nothing written to it reaches the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, findKey, listKeys } from '../../src/metering/keys.ts';
import { createStore } from '../../src/store/openStore.ts';

let dir: string;
let fileKey: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-copyof-'));
  const store = await createStore({ dataDir: dir, threads: 1 });
  fileKey = (await createKey(store, { plan: 'free', name: 'in the file' })).key;
  await store.close();
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('createStore with copyOf', () => {
  it("holds the file's rows in memory, and its own writes leave the file as it was", async () => {
    const copy = await createStore({ dataDir: null, threads: 1, copyOf: path.join(dir, 'chainq.duckdb') });
    try {
      expect(copy.dataDir).toBeNull();
      expect((await findKey(copy, fileKey))?.name).toBe('in the file');
      const { key } = await createKey(copy, { plan: 'free', name: 'in the copy' });
      expect(await findKey(copy, key)).not.toBeNull();
    } finally {
      await copy.close();
    }
    const file = await createStore({ dataDir: dir, threads: 1, readOnly: true });
    try {
      expect((await listKeys(file)).map((k) => k.name)).toEqual(['in the file']);
    } finally {
      await file.close();
    }
  });

  it('refuses a data directory: the copy is an in-memory store', async () => {
    await expect(createStore({ dataDir: dir, copyOf: path.join(dir, 'chainq.duckdb') })).rejects.toThrow('in-memory');
  });
});
