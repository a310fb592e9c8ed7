/** Rows appended out of order are still answered in order, and `compact` restores the physical order. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { isPhysicallyOrdered } from '../../src/store/coverage.ts';
import { addCoverage } from '../../src/store/duckdb/coverageWrites.ts';
import { compactDatasets } from '../../src/store/maintenance.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const ETH0 = DEMO_START_BLOCKS.ETH!;
const url = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 50}&verbose=true`;
type Row = { block_number: number; log_index: number };
const inOrder = (rows: Row[]) => rows.every((r, i) => i === 0 || rows[i - 1]!.block_number < r.block_number || (rows[i - 1]!.block_number === r.block_number && rows[i - 1]!.log_index < r.log_index));

describe('physical order', () => {
  it('starts in order after the demo load', async () => {
    expect(await isPhysicallyOrdered(t.store, 'evm/erc20/transfer', 'ETH')).toBe(true);
  });

  it('sorts once a range is re-ingested at the end of the table, and compact makes the table ordered again', async () => {
    const before = t.get(url).then((r) => (r.json() as { events: Row[] }).events);
    const expected = await before;
    // Re-ingest the first 20 blocks the way adapters do: delete the range, append it, record coverage.
    await engineSql(t.store).transaction(async (tx) => {
      await tx.run(`CREATE TEMP TABLE reingest AS SELECT * FROM evm_erc20_transfer WHERE network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 19}`);
      await tx.run(`DELETE FROM evm_erc20_transfer WHERE network = 'ETH' AND block_number BETWEEN ${ETH0} AND ${ETH0 + 19}`);
      await tx.run(`INSERT INTO evm_erc20_transfer SELECT * FROM reingest ORDER BY block_number DESC, log_index DESC`);
      await tx.run(`DROP TABLE reingest`);
      await addCoverage(tx, 'evm/erc20/transfer', 'ETH', ETH0, ETH0 + 19);
    });
    expect(await isPhysicallyOrdered(t.store, 'evm/erc20/transfer', 'ETH')).toBe(false);
    const after = (await t.get(url)).json() as { events: Row[] };
    expect(inOrder(after.events)).toBe(true);
    expect(after.events).toEqual(expected);

    expect(await compactDatasets(t.store)).toEqual(['evm_erc20_transfer']);
    expect(await isPhysicallyOrdered(t.store, 'evm/erc20/transfer', 'ETH')).toBe(true);
    expect(((await t.get(url)).json() as { events: Row[] }).events).toEqual(expected);
  });
});
