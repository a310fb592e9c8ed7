/**
 * No answer carries a negative zero (docs/api.md, "Amounts"): every double
 * column of the data tables is set to -0.0 in the store, and every endpoint,
 * raw and aggregate, with USD values and candles, answers 0 in JSON, CSV and
 * Parquet, on either engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEndpoints, venueEndpoints } from '../../src/catalog/index.ts';
import { DEMO_START } from '../../src/demo/generate.ts';
import { coveredIntervals, coveredScopes } from '../../src/store/coverage.ts';
import { mirrorTables, engineSql } from '../helpers/engineSql.ts';
import { parseCsv, readParquet } from '../helpers/formats.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
const tables = [...new Set([...chainEndpoints.filter((e) => e.served), ...venueEndpoints].map((e) => e.table.name))];

beforeAll(async () => {
  t = await createTestApp();
  // Prices stay as they are, so that a USD value is -0.0 × a price.
  for (const table of tables) {
    const doubles = await engineSql(t.oracle).all<{ name: string }>(`SELECT column_name AS name FROM information_schema.columns WHERE table_name = $table AND data_type = 'DOUBLE'`, { table });
    if (doubles.length === 0) continue;
    await engineSql(t.oracle).run(`UPDATE ${table} SET ${doubles.map((d) => `"${d.name}" = '-0.0'::DOUBLE`).join(', ')}`);
  }
  const stored = await engineSql(t.oracle).all<{ x: number }>(`SELECT unrealized_pnl AS x FROM venue_b_positions LIMIT 1`);
  expect(Object.is(stored[0]?.x, -0)).toBe(true);
  await mirrorTables(t.store, t.oracle, tables);
});
afterAll(async () => {
  await t?.close();
});

/** Every data route, in the shapes that reach each renderer path: rows, USD values, aggregates by time and block, candles. */
async function requests(): Promise<{ url: string; formats: string[] }[]> {
  const out: { url: string; formats: string[] }[] = [];
  const all = ['json', 'csv', 'parquet'];
  for (const e of chainEndpoints.filter((x) => x.served)) {
    const scopes = await coveredScopes(t.oracle, e.id);
    const scope = scopes.includes('ETH') ? 'ETH' : scopes[0];
    if (!scope) continue;
    const { lo, hi } = (await coveredIntervals(t.oracle, e.id, scope))[0]!;
    const network = e.family === 'evm' ? `network=${scope}&` : '';
    let extra = '';
    if (e.protocol === 'erc20') extra = '&token=USDC';
    if (e.protocol === 'trc20') extra = '&token=USDT';
    if (e.protocol === 'dex_v3') extra = '&symbol0=WETH&symbol1=USDC&fee=500';
    const range = `${network}block_start=${lo}&block_end=${Math.min(hi, lo + (e.family === 'btc' ? 5 : 150))}${extra}`;
    out.push({ url: `${e.path}?${range}&verbose=true`, formats: all });
    if (e.family === 'evm') out.push({ url: `${e.path}?${range}&with_value=true`, formats: all });
    if (e.aggregate) {
      out.push({ url: `${e.path}/aggregate?${range}&group_by=time&period=1h`, formats: all }, { url: `${e.path}/aggregate?${range}&group_by=block_number&period=50`, formats: all });
      if (e.family === 'evm' && e.aggregate.valued) out.push({ url: `${e.path}/aggregate?${range}&group_by=time&period=1h&with_value=true`, formats: all });
    }
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  for (const e of venueEndpoints) {
    out.push({ url: `${e.path}?token=BTC&since=${iso(DEMO_START)}&until=${iso(DEMO_START + 3_600_000)}`, formats: e.formats.map(String) });
  }
  return out;
}

const NEGATIVE_ZERO_TEXT = /^-0(\.0*)?(e[+-]?\d+)?$/i;

/** Counts the zeros of an answer and fails on a negative one. */
async function zerosIn(url: string, format: string): Promise<number> {
  const r = await t.get(`${url}&format=${format}`);
  expect(r.statusCode, `${url}&format=${format}: ${r.body.slice(0, 300)}`).toBe(200);
  const values: unknown[] = [];
  if (format === 'json') {
    const body = JSON.parse(r.body) as { events: Record<string, unknown>[] };
    for (const row of body.events) values.push(...Object.values(row));
  } else if (format === 'csv') {
    for (const row of parseCsv(r.body).rows) {
      for (const field of Object.values(row)) {
        if (NEGATIVE_ZERO_TEXT.test(field)) values.push(-0);
        else if (/^0(\.0*)?$/.test(field)) values.push(0);
      }
    }
  } else {
    for (const row of (await readParquet(t.oracle, r.rawPayload)).rows) values.push(...Object.values(row));
  }
  const negative = values.filter((v) => Object.is(v, -0));
  expect(negative.length, `${url}&format=${format}`).toBe(0);
  return values.filter((v) => v === 0).length;
}

describe('negative zero', () => {
  it('is answered as 0 in every double column of every endpoint and format', async () => {
    const list = await requests();
    expect(list.length).toBeGreaterThan(40);
    let zeros = 0;
    for (const { url, formats } of list) {
      for (const format of formats) {
        zeros += await zerosIn(url, format);
      }
    }
    // Far more zeros than rows of a few endpoints: the double columns were read, not skipped.
    expect(zeros).toBeGreaterThan(10_000);
  });
});
