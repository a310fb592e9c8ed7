/**
 * chDB's directory is locked by the process that opens it, so the store
 * counts its own writes and keeps the planners' lookups (coverage, registry)
 * until it writes again, as DuckDB does: a data request then runs its query
 * alone. These tests change the tables behind the store's back, through a
 * client whose writes are not counted, to tell a kept answer from a fresh one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openClickHouse } from '../helpers/clickhouseStore.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';

const dirs: string[] = [];
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function setUp(database = 'chainq'): Promise<{ dir: string; store: ClickHouseStore }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chlookups-'));
  dirs.push(dir);
  const store = await createClickHouseStore({ target: { engine: 'chdb', dir }, database });
  closing.push(() => store.close());
  return { dir, store };
}

/** Runs `sql` on the store's directory without the store's clock seeing it. */
async function behindTheBack(dir: string, sql: string): Promise<void> {
  const { client, local } = await openClickHouse({ engine: 'chdb', dir });
  try {
    if (!local) throw new Error('chDB has a local engine');
    await local.uncounted.command({ query: sql });
  } finally {
    await client.close();
  }
}

const coverageRow = (db: string, hi: number, version: number) => `INSERT INTO \`${db}\`.coverage VALUES ('evm_erc20_transfer', 'ETH', [(1, ${hi})], ${version})`;
const tokenRow = (db: string, address: string) => `INSERT INTO \`${db}\`.tokens VALUES ('USDT', 'Tether', [], 'ETH', '${address}', 6)`;

describe('lookups on chDB', () => {
  it('keeps coverage until the store writes again: a change behind its back is not read, any write through it drops what was kept', async () => {
    const { dir, store } = await setUp();
    await store.command(coverageRow('chainq', 10, 1));
    const intervals = async () => (await store.snapshot()).coverage.intervals('evm_erc20_transfer', 'ETH');
    expect(await intervals()).toEqual([{ lo: 1, hi: 10 }]);
    await behindTheBack(dir, coverageRow('chainq', 20, 2));
    expect(await intervals()).toEqual([{ lo: 1, hi: 10 }]);
    // A write to another table is enough: the store does not know what a statement changes.
    await store.command(`INSERT INTO ${store.table('ingest_files')} VALUES ('s', 'p', 'h', 0, now64(3))`);
    expect(await intervals()).toEqual([{ lo: 1, hi: 20 }]);
    await store.command(coverageRow('chainq', 30, 3));
    expect(await intervals()).toEqual([{ lo: 1, hi: 30 }]);
  });

  it('keeps registry answers until the store writes again, for every snapshot alike', async () => {
    const { dir, store } = await setUp();
    await store.command(tokenRow('chainq', '0xaaa'));
    const addresses = async () => (await (await store.snapshot()).registry.tokensBySymbol('ETH', 'USDT')).map((t) => t.address);
    expect(await addresses()).toEqual(['0xaaa']);
    await behindTheBack(dir, `TRUNCATE TABLE chainq.tokens`);
    await behindTheBack(dir, tokenRow('chainq', '0xbbb'));
    expect(await addresses()).toEqual(['0xaaa']);
    await store.command(`TRUNCATE TABLE ${store.table('tokens')}`);
    expect(await addresses()).toEqual([]);
  });

  it('keeps the answers of each database of a directory apart', async () => {
    const { dir, store: one } = await setUp('one');
    const two = await createClickHouseStore({ target: { engine: 'chdb', dir }, database: 'two' });
    closing.push(() => two.close());
    await one.command(coverageRow('one', 10, 1));
    await two.command(coverageRow('two', 99, 1));
    expect(await one.coverage.intervals('evm_erc20_transfer', 'ETH')).toEqual([{ lo: 1, hi: 10 }]);
    expect(await two.coverage.intervals('evm_erc20_transfer', 'ETH')).toEqual([{ lo: 1, hi: 99 }]);
    // A write by one store of the directory is a write for all of them.
    await behindTheBack(dir, coverageRow('one', 11, 2));
    await two.command(coverageRow('two', 98, 2));
    expect(await one.coverage.intervals('evm_erc20_transfer', 'ETH')).toEqual([{ lo: 1, hi: 11 }]);
  });
});
