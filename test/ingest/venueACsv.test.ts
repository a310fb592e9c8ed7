/**
 * How venue_a's CSV cells become stored values, now that the engine's CSV
 * reader parses each column as its stored type: what it accepts, and what
 * fails the whole file (and leaves the day as it was).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestVenueA } from '../../src/ingest/venues/ingestVenueA.ts';
import { archivePath } from '../../src/ingest/venues/venueAArchive.ts';
import type { Store } from '../../src/store/types.ts';
import * as fx from './fixtures/venueA.ts';
import { count, coverage, dump, memoryStore, tempDir } from './helpers.ts';

const D1 = Date.UTC(2025, 11, 1);
const REL = archivePath('trades', 'BTCUSDT', '2025-12-01');
const HEADER = 'id,price,qty,quote_qty,time,is_buyer_maker\n';
const DATASET = 'exchange/venue_a/raw_trades';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = tempDir('venue_a_csv');
  store = await memoryStore();
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Publishes the day's trades file in the local archive, with its .CHECKSUM. */
function publish(csv: string): void {
  const file = path.join(dir, REL);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { zip, checksum } = fx.zipWithChecksum('BTCUSDT-trades-2025-12-01.csv', csv);
  fs.writeFileSync(file, zip);
  fs.writeFileSync(`${file}.CHECKSUM`, checksum);
}

const run = (force = false) =>
  ingestVenueA({ store, archive: dir, tokens: ['BTC'], kinds: ['trades'], since: D1, until: D1 + fx.DAY, force, http: { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }, now: D1 + 2 * fx.DAY });

const s = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(ms).toISOString();

describe('venue_a trades CSV cells', () => {
  it('reads each epoch timestamp by its own magnitude (seconds, ms and µs in one file), spaces around numbers, and an empty quantity as null', async () => {
    const t = D1 + 3_600_000;
    publish(`${HEADER}1,91250.5,0.002,182.501,${s(t)},true\n2, 91250.6 ,0.003,,${t + 1000},false\n3,91250.7,0.004,365.0028,${(t + 2000) * 1000},true\n`);
    expect(await run()).toMatchObject({ done: 1, failed: [], rows: 3 });
    expect(await dump(store, 'venue_a_trades')).toEqual([
      { token: 'BTC', time: iso(t), id: '1', price: 91250.5, amount: 0.002, quote_amount: 182.501, buy: false },
      { token: 'BTC', time: iso(t + 1000), id: '2', price: 91250.6, amount: 0.003, quote_amount: null, buy: true },
      { token: 'BTC', time: iso(t + 2000), id: '3', price: 91250.7, amount: 0.004, quote_amount: 365.0028, buy: false },
    ]);
  });

  it('fails a file with an empty trade id, keeping the rows and coverage the day had', async () => {
    publish(`${HEADER}1,91250.5,0.002,182.501,${D1 + 1000},true\n`);
    expect(await run()).toMatchObject({ done: 1, failed: [] });
    const before = await dump(store, 'venue_a_trades');
    publish(`${HEADER}1,91250.5,0.002,182.501,${D1 + 1000},true\n,91250.6,0.003,273.7518,${D1 + 2000},false\n`);
    const summary = await run(true);
    expect(summary.failed).toEqual([expect.stringContaining(REL)]);
    expect(await dump(store, 'venue_a_trades')).toEqual(before);
    expect(await coverage(store, DATASET, 'BTC')).toEqual([[D1, D1 + fx.DAY - 1]]);
  });

  it('fails a file whose timestamps turn from epoch digits to text partway, storing none of it', async () => {
    publish(`${HEADER}1,91250.5,0.002,182.501,${D1 + 1000},true\n2,91250.6,0.003,273.7518,2025-12-01 00:00:02,false\n`);
    const summary = await run();
    expect(summary.failed).toEqual([expect.stringContaining(REL)]);
    expect(await count(store, 'venue_a_trades')).toBe(0);
    expect(await coverage(store, DATASET, 'BTC')).toEqual([]);
  });
});
