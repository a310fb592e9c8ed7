/**
 * Every EVM raw endpoint, in every format, against an independent computation
 * over the stored rows: the test maps stored rows to output rows itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEndpoints } from '../../src/catalog/index.ts';
import type { ChainEndpoint } from '../../src/catalog/types.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { plain, readBody, type Row } from '../helpers/decode.ts';
import { engineSql } from '../helpers/engineSql.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/** The test's own statement of what each output column is, from the stored row. */
function expectedRow(e: ChainEndpoint, s: Row): Row {
  const out: Row = {};
  for (const c of e.columns) {
    const sold0 = Number(s.amount0) > 0;
    switch (c.name) {
      case 'time':
        out.time = iso(s.time as Date);
        break;
      case 'tokenSold':
        out.tokenSold = sold0 ? s.token0 : s.token1;
        break;
      case 'tokenBought':
        out.tokenBought = sold0 ? s.token1 : s.token0;
        break;
      case 'amountSold':
        out.amountSold = sold0 ? s.amount0 : s.amount1;
        break;
      case 'amountBought':
        out.amountBought = sold0 ? -Number(s.amount1) : -Number(s.amount0);
        break;
      default:
        out[c.name] = plain(s[c.name]);
    }
  }
  return out;
}

/** CSV carries text: read each field back by the column's declared type (numbers may use exponent form). */
function typedCsvRow(e: ChainEndpoint, r: Row): Row {
  return Object.fromEntries(
    e.columns.map((c) => {
      const v = r[c.name] as string | null;
      if (v === null || v === '') return [c.name, null];
      if (c.type === 'integer' || c.type === 'double') return [c.name, Number(v)];
      if (c.type === 'boolean') return [c.name, v === 'true'];
      return [c.name, v];
    }),
  );
}

async function storedRows(e: ChainEndpoint, network: string, start: number, end: number): Promise<Row[]> {
  const order = e.table.orderBy.filter((k) => k !== 'network').join(', ');
  return engineSql(t.oracle).all<Row>(`SELECT * FROM ${e.table.name} WHERE network = $network AND block_number BETWEEN $start AND $end ORDER BY ${order}`, { network, start, end });
}

async function firstCoveredNetwork(e: ChainEndpoint): Promise<{ network: string; lo: number }> {
  const rows = await engineSql(t.oracle).all<{ scope: string; lo: bigint }>(`SELECT scope, lo FROM coverage WHERE dataset = $d ORDER BY scope <> 'ETH', scope`, { d: e.id });
  const r = rows[0];
  if (!r) throw new Error(`demo has no ${e.id}`);
  return { network: r.scope, lo: Number(r.lo) };
}

const evm = chainEndpoints.filter((e) => e.family === 'evm' && e.served);

describe.each(evm.map((e) => [e.id, e] as const))('%s', (_id, e) => {
  let network: string;
  let start: number;
  let end: number;
  let query: string;
  let expected: Row[];

  beforeAll(async () => {
    ({ network, lo: start } = await firstCoveredNetwork(e));
    // Wide enough to hold rows of sparse datasets, within every format's limit.
    end = start + (network === 'ARB' ? 10_000 : 2_000);
    let extra = '';
    if (e.protocol === 'erc20') extra = '&token=USDC';
    if (e.protocol === 'dex_v3') extra = '&symbol0=WETH&symbol1=USDC&fee=500';
    query = `${e.path}?network=${network}&block_start=${start}&block_end=${end}${extra}`;
    let stored = await storedRows(e, network, start, end);
    if (e.protocol === 'erc20') stored = stored.filter((r) => r.token === 'USDC');
    if (e.protocol === 'dex_v3') {
      const [pool] = await engineSql(t.oracle).all<{ pool_address: string }>(`SELECT pool_address FROM pools WHERE network = $n AND fee = 500`, { n: network });
      stored = stored.filter((r) => r.pool_address === pool!.pool_address);
    }
    if (e.protocol === 'lending_v3' && network === 'ETH') stored = stored.filter((r) => r.market === 'Core');
    expected = stored.map((s) => expectedRow(e, s));
    expect(expected.length).toBeGreaterThan(0);
  });

  it('answers JSON rows equal to the stored rows, in block order, in the envelope', async () => {
    const res = await t.get(query);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json() as { status: string; events: Row[]; count: number };
    expect(body.status).toBe('success');
    expect(body.count).toBe(expected.length);
    expect(body.events).toEqual(expected);
    expect(Object.keys(body.events[0]!)).toEqual(e.columns.map((c) => c.name));
  });

  it('answers the same rows as CSV and as Parquet', async () => {
    const csv = await t.get(`${query}&format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.split('\n')[0]).toBe(e.columns.map((c) => c.name).join(','));
    const csvRows = await readBody(t.oracle, csv.rawPayload, 'csv');
    expect(csvRows.map((r) => typedCsvRow(e, r))).toEqual(expected);

    const pq = await t.get(`${query}&format=parquet`);
    expect(pq.statusCode).toBe(200);
    expect(pq.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(pq.headers['content-disposition']).toMatch(/^attachment; filename=".+\.parquet"$/);
    const pqRows = (await readBody(t.oracle, pq.rawPayload, 'parquet')).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
    expect(pqRows).toEqual(expected);
  });

  it('appends network, tx_id, log_index and name with verbose=true, and drops time with with_time=false', async () => {
    const res = await t.get(`${query}&verbose=true&with_time=false`);
    const body = res.json() as { events: Row[] };
    const names = [...e.columns.map((c) => c.name).filter((n) => n !== 'time'), ...e.verboseColumns.map((c) => c.name)];
    expect(Object.keys(body.events[0]!)).toEqual(names);
    expect(body.events[0]!.network).toBe(network);
    expect(String(body.events[0]!.tx_id)).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
