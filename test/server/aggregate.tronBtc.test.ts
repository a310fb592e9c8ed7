/**
 * Tron and Bitcoin aggregates, over rows this test writes itself: defaults,
 * the listed periods, rows per token, the envelope, and the time
 * representation (Bitcoin epoch seconds in JSON and Parquet, ISO elsewhere).
 * The Tron and Bitcoin catalog entries are served here whether or not the
 * shipped catalog serves them yet.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { createApp } from '../../src/server/createApp.ts';
import { refreshPrices } from '../../src/reference/prices.ts';
import type { Store } from '../../src/store/types.ts';
import { expectClose, groupRows, isoSeconds, parseCsv, readParquet, sum, type Row } from '../helpers/aggregateOracle.ts';
import { mirrorTables, engineSql } from '../helpers/engineSql.ts';
import { createTestStores } from '../helpers/testApp.ts';
import { BTC0, BTC_BLOCKS, TRON0, TRON_BLOCKS, TRON_BTC_TABLES, servedWithTronBtc, writeTronBtcRows } from '../helpers/tronBtcRows.ts';

const T0 = Date.UTC(2025, 11, 1);

let store: Store;
/** The same rows in DuckDB: where fixtures are written (engineSql.ts). */
let oracle: Store;
let app: FastifyInstance;
let key: string;
const rows: Record<'trc20' | 'trx' | 'btc', Row[]> = { trc20: [], trx: [], btc: [] };

const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

beforeAll(async () => {
  // The seed without the demo: the test's own rows are the only Tron and Bitcoin rows.
  ({ served: store, oracle } = await createTestStores(null));
  Object.assign(rows, await writeTronBtcRows(oracle));
  await mirrorTables(store, oracle, TRON_BTC_TABLES);
  app = await createApp({ store, catalog: servedWithTronBtc() });
  key = (await createKey(store, { plan: 'unlimited' })).key;
});
afterAll(async () => {
  await app?.close();
  await store?.close();
});

const TRC20 = `/v1/tron/trc20/events/transfer/aggregate?token=usdt&block_start=${TRON0}&block_end=${TRON0 + TRON_BLOCKS - 1}`;
const TRX = `/v1/tron/native/events/transfer/aggregate?block_start=${TRON0}&block_end=${TRON0 + TRON_BLOCKS - 1}`;
const BTC = `/v1/btc/native/events/transfer/aggregate?block_start=${BTC0}&block_end=${BTC0 + BTC_BLOCKS - 1}`;

async function envelope(url: string): Promise<Row[]> {
  const res = await get(url);
  if (res.statusCode !== 200) throw new Error(`${url} → ${res.statusCode} ${res.body}`);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['status', 'events', 'count']);
  expect(body.status).toBe('success');
  const events = body.events as Row[];
  expect(body.count).toBe(events.length);
  return events;
}

/** Expected rows: `{time or block_number, token, agg_amount, count}` per bucket and token. */
function expected(raw: readonly Row[], groupBy: 'time' | 'block_number', period: string, time: 'iso' | 'epoch'): Row[] {
  return groupRows(raw, groupBy, period, (r) => String(r.token)).map(({ key: k, group, rows: rs }) => ({
    [groupBy]: groupBy === 'block_number' ? k.startBlock : time === 'iso' ? isoSeconds(k.startMs!) : k.startMs! / 1000,
    token: group,
    agg_amount: sum(rs.map((r) => Number(r.amount))),
    count: rs.length,
  }));
}

function compare(actual: readonly Row[], want: readonly Row[], what: string): void {
  expect(want.length, `${what}: the test data fills some buckets`).toBeGreaterThan(0);
  expect(actual.length, what).toBe(want.length);
  actual.forEach((row, i) => {
    expect(Object.keys(row), what).toEqual(Object.keys(want[i]!));
    const { agg_amount: a, ...rest } = row;
    const { agg_amount: b, ...wantRest } = want[i]!;
    expect(rest, `${what} row ${i}`).toEqual(wantRest);
    expectClose(a, b as number, `${what} row ${i} agg_amount`);
  });
}

describe('Tron and Bitcoin aggregates', () => {
  const cases = [
    { name: 'tron/trc20', url: TRC20, raw: () => rows.trc20, time: 'iso' as const },
    { name: 'tron/native', url: TRX, raw: () => rows.trx, time: 'iso' as const },
    { name: 'btc/native', url: BTC, raw: () => rows.btc, time: 'epoch' as const },
  ];
  it('the test data is in place', () => {
    expect([rows.trc20.length, rows.trx.length, rows.btc.length]).toEqual([4000, 4000, 1500]);
  });

  for (const c of cases) {
    it(`${c.name}: group by time by default, every 1h`, async () => {
      compare(await envelope(c.url), expected(c.raw(), 'time', '1h', c.time), c.url);
    });

    it(`${c.name}: every listed time period`, async () => {
      for (const period of ['1m', '5m', '30m', '1h', '1d', '1w']) {
        compare(await envelope(`${c.url}&group_by=time&period=${period}`), expected(c.raw(), 'time', period, c.time), `${c.name} ${period}`);
      }
    });

    it(`${c.name}: group by blocks, 1000 by default, or any block count`, async () => {
      compare(await envelope(`${c.url}&group_by=block_number`), expected(c.raw(), 'block_number', '1000', c.time), `${c.name} blocks`);
      compare(await envelope(`${c.url}&group_by=block_number&period=37`), expected(c.raw(), 'block_number', '37', c.time), `${c.name} 37 blocks`);
    });

    it(`${c.name}: refuses unlisted periods, a wrong group_by and with_value`, async () => {
      const bad = await get(`${c.url}&period=2h`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'period', supported: ['1m', '5m', '30m', '1h', '1d', '1w'] });
      const group = await get(`${c.url}&group_by=day`);
      expect(group.json()).toMatchObject({ code: 'invalid_parameter', supported: ['time', 'block_number'] });
      const value = await get(`${c.url}&with_value=true`);
      expect(value.json()).toMatchObject({ code: 'unknown_parameter', parameter: 'with_value' });
      const blocks = await get(`${c.url}&group_by=block_number&period=1h`);
      expect(blocks.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'period' });
    });
  }

  it('Bitcoin time buckets are epoch seconds in JSON and Parquet, and ISO 8601 in CSV', async () => {
    const json = await envelope(`${BTC}&period=1d`);
    expect(typeof json[0]!.time).toBe('number');
    expect(json[0]!.time).toBe(T0 / 1000);
    const pq = await readParquet(oracle, (await get(`${BTC}&period=1d&format=parquet`)).rawPayload);
    expect(pq.types).toEqual({ time: 'BIGINT', token: 'VARCHAR', agg_amount: 'DOUBLE', count: 'BIGINT' });
    expect(pq.rows.map((r) => Number(r.time))).toEqual(json.map((r) => r.time));
    const csv = parseCsv((await get(`${BTC}&period=1d&format=csv`)).body);
    expect(Object.keys(csv[0]!)).toEqual(['time', 'token', 'agg_amount', 'count']);
    expect(csv.map((r) => r.time)).toEqual(json.map((r) => isoSeconds((r.time as number) * 1000)));
  });

  it('Tron time buckets are ISO 8601 in every format', async () => {
    const json = await envelope(`${TRX}&period=1h`);
    expect(json[0]!.time).toBe('2025-12-01T00:00:00Z');
    const pq = await readParquet(oracle, (await get(`${TRX}&period=1h&format=parquet`)).rawPayload);
    expect(pq.types.time).toBe('VARCHAR');
    expect(pq.rows.map((r) => r.time)).toEqual(json.map((r) => r.time));
    const csv = parseCsv((await get(`${TRX}&period=1h&format=csv`)).body);
    expect(csv.map((r) => r.time)).toEqual(json.map((r) => r.time));
  });

  it('a time range selects the same events as the matching block range', async () => {
    const url = '/v1/btc/native/events/transfer/aggregate?since=2025-12-01T06:00:00Z&until=2025-12-02T06:00:00Z&period=1d';
    const got = await envelope(url);
    const inRange = rows.btc.filter((r) => Date.parse(String(r.time)) >= T0 + 6 * 3_600_000 && Date.parse(String(r.time)) < T0 + 30 * 3_600_000);
    compare(got, expected(inRange, 'time', '1d', 'epoch'), url);
  });

  it('raw Bitcoin rows take with_value like every chain endpoint: value_usd from the BTC candles', async () => {
    await engineSql(oracle).run(`INSERT INTO venue_a_klines SELECT 'BTC', TIMESTAMP '2025-12-01' + to_minutes(m), 0, 0, 0, 90000 + m, 1, 0, 1, 0 FROM range(60) r(m)`);
    await refreshPrices(oracle);
    await mirrorTables(store, oracle, ['venue_a_klines', 'prices']);
    const res = await get(`/v1/btc/native/events/transfer?block_start=${BTC0}&block_end=${BTC0 + 20}&with_value=true`);
    expect(res.statusCode, res.body).toBe(200);
    const events = (res.json() as { events: Row[] }).events;
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      const minute = Math.floor((Date.parse(String(e.time)) - T0) / 60_000);
      expectClose(e.value_usd, minute < 60 ? Number(e.amount) * (90_000 + minute) : null, `value_usd at ${e.time}`);
    }
  });
});
