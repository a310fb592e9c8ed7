/**
 * The chDB store's usage ledger: as on DuckDB, a charge is durable once one
 * line is in the journal (in the chDB directory, one per database), reaches
 * `usage_charges` in the background, and what a killed process left in the
 * journal is applied when the store opens again, once; a charge written ahead
 * stands only once confirmed. A usage read settles the ledger first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalDir } from '../../src/store/clickhouse/chargeJournal.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import { killedAfter } from '../helpers/killedAfter.ts';
import { JOURNAL_FILE } from '../../src/store/journalLedger.ts';

const dirs: string[] = [];
const newDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chledger-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const open = (dir: string, database = 'chainq') => createClickHouseStore({ target: { engine: 'chdb', dir }, database });
const charge = (requestId: string, cost = 100) => ({ keyId: 'key1', period: '2026-11', requestId, cost, admittedAt: Date.parse('2026-11-24T12:00:00Z'), endpoint: '/v1/evm/erc20/events/transfer' });
const tableIds = async (store: ClickHouseStore) => (await store.query<{ request_id: string }>(`SELECT request_id FROM ${store.table('usage_charges')} ORDER BY request_id`)).map((r) => r.request_id);

describe('the chDB usage ledger', () => {
  it('makes a charge durable in the journal, not the table, and puts it in usage_charges in the background with its fields', async () => {
    const dir = newDir();
    const store = await open(dir);
    await store.ledger!.record([charge('a', 7)]);
    expect(fs.readFileSync(path.join(journalDir(dir, 'chainq'), JOURNAL_FILE), 'utf8')).toContain('"requestId":"a"');
    await expect.poll(() => tableIds(store), { timeout: 5000 }).toEqual(['a']);
    const [row] = await store.query(`SELECT key_id, period, cost, toString(admitted_at) AS admitted, endpoint, charged_at >= admitted_at AS charged_ok FROM ${store.table('usage_charges')}`);
    expect(row).toEqual({ key_id: 'key1', period: '2026-11', cost: 7, admitted: '2026-11-24 12:00:00.000', endpoint: '/v1/evm/erc20/events/transfer', charged_ok: 1 });
    await store.close();
  });

  it('answers usage reads with every charge recorded, settling the journal first', async () => {
    const store = await open(newDir());
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.ledger!.record([charge(`r${i}`, 1)])));
    expect(await store.usage.usedInPeriod('key1', '2026-11')).toBe(20);
    await store.ledger!.record([charge('r20', 1)]);
    expect(await store.usage.totals({ keyId: 'key1' })).toEqual([{ keyId: 'key1', period: '2026-11', requests: 21, blocks: 21 }]);
    expect(await store.usage.charged('r7')).toBe(true);
    expect(await store.usage.recent('key1', '2026-11', 100)).toHaveLength(21);
    await store.close();
  });

  it('a charge recorded by a process killed before applying it is in the table when the store opens again, once; a pending charge never confirmed is not', async () => {
    const dir = newDir();
    await killedAfter(
      'chdb',
      dir,
      `
      await store.ledger.record([c('x1')]);
      await store.ledger.settle();
      await Promise.all([store.ledger.record([c('x2')]), store.ledger.record([c('x3')])]);
      const inFlight = store.ledger.recordAhead(c('in-flight'));
      const delivered = store.ledger.recordAhead(c('delivered'));
      await Promise.all([inFlight.durable, delivered.durable]);
      await delivered.confirm();
    `,
    );
    const journal = path.join(journalDir(dir, 'chainq'), JOURNAL_FILE);
    expect(fs.readFileSync(journal, 'utf8')).toContain('"x3"');
    const store = await open(dir);
    expect(await tableIds(store)).toEqual(['delivered', 'x1', 'x2', 'x3']);
    expect(fs.statSync(journal).size).toBe(0);
    await store.close();
    const again = await open(dir);
    expect(await tableIds(again)).toEqual(['delivered', 'x1', 'x2', 'x3']);
    await again.close();
  });

  it('keeps one journal per database of a directory', async () => {
    const dir = newDir();
    const a = await open(dir, 'one');
    const b = await open(dir, 'two');
    await a.ledger!.record([charge('in-one')]);
    await b.ledger!.record([charge('in-two')]);
    await a.ledger!.settle();
    await b.ledger!.settle();
    expect(await tableIds(a)).toEqual(['in-one']);
    expect(await tableIds(b)).toEqual(['in-two']);
    await a.close();
    await b.close();
  });
});
