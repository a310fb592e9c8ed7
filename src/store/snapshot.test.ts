/** A snapshot reads one committed state, whatever commits meanwhile: what makes a request never see half a batch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCoverage } from './duckdb/coverageWrites.ts';
import { createStore } from './openStore.ts';
import type { Store } from './types.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

let store: Store;
beforeAll(async () => {
  store = await createStore({ dataDir: null, threads: 1 });
});
afterAll(async () => {
  await store?.close();
});

const count = async (s: Store) => Number((await engineSql(s).all<{ n: bigint }>(`SELECT count(*) AS n FROM blocks WHERE network = 'T'`))[0]!.n);

describe('store snapshot', () => {
  it('sees neither the rows nor the coverage of a batch committed after it began, in lookups and in the export', async () => {
    await engineSql(store).transaction(async (tx) => {
      await tx.run(`INSERT INTO blocks VALUES ('T', 1, TIMESTAMP '2025-12-01 00:00:00', '0x1', '0x0')`);
      await addCoverage(tx, 'test/t/t', 'T', 1, 1);
    });
    const snap = await store.snapshot();
    try {
      await engineSql(store).transaction(async (tx) => {
        await tx.run(`INSERT INTO blocks VALUES ('T', 2, TIMESTAMP '2025-12-01 00:00:12', '0x2', '0x1')`);
        await addCoverage(tx, 'test/t/t', 'T', 2, 2);
      });
      expect(await count(store)).toBe(2);
      expect(await count(snap)).toBe(1);
      expect(await engineSql(snap).all(`SELECT lo, hi FROM coverage WHERE scope = 'T'`)).toEqual([{ lo: 1n, hi: 1n }]);
      const exp = await snap.copyToStream(`SELECT number FROM blocks WHERE network = 'T' ORDER BY number`, {}, 'csv');
      const chunks: Buffer[] = [];
      for await (const c of exp.stream) chunks.push(c as Buffer);
      expect(await exp.done).toBe(1);
      expect(Buffer.concat(chunks).toString()).toBe('number\n1\n');
      await expect(engineSql(snap).run(`DELETE FROM blocks`)).rejects.toThrow(/read-only/);
    } finally {
      await snap.close();
    }
    const again = await store.snapshot();
    expect(await count(again)).toBe(2);
    await again.close();
  });

  it('a view opened ahead of the next request is never handed out once a write has begun, nor one opened during a write', async () => {
    const before = await count(store);
    // Each snapshot opens the next one ahead of time; let it be ready.
    await (await store.snapshot()).close();
    await new Promise((r) => setTimeout(r, 50));
    await engineSql(store).transaction(async (tx) => {
      await tx.run(`INSERT INTO blocks VALUES ('T', 100, TIMESTAMP '2025-12-01 00:20:00', '0x64', '0x63')`);
    });
    const after = await store.snapshot();
    expect(await count(after)).toBe(before + 1);
    await after.close();

    // A write that begins while the next view is being opened: the view is not kept.
    const opening = store.snapshot();
    const writing = engineSql(store).transaction(async (tx) => {
      await tx.run(`INSERT INTO blocks VALUES ('T', 101, TIMESTAMP '2025-12-01 00:20:12', '0x65', '0x64')`);
    });
    await (await opening).close();
    await writing;
    await new Promise((r) => setTimeout(r, 50));
    const last = await store.snapshot();
    expect(await count(last)).toBe(before + 2);
    await last.close();
  });

  it('a view whose query failed leaves no broken connection behind: later views, on reused connections, read the latest commit', async () => {
    for (let i = 0; i < 3; i++) {
      const failed = await store.snapshot();
      await expect(engineSql(failed).all('SELECT * FROM no_such_table')).rejects.toThrow();
      await failed.close();
    }
    await engineSql(store).transaction(async (tx) => {
      await tx.run(`INSERT INTO blocks VALUES ('T', 200, TIMESTAMP '2025-12-01 00:40:00', '0xc8', '0xc7')`);
    });
    const expected = await count(store);
    for (let i = 0; i < 20; i++) {
      const view = await store.snapshot();
      expect(await count(view)).toBe(expected);
      await view.close();
    }
  });
});
