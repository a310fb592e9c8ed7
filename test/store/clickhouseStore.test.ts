/**
 * The API served from ClickHouse (chDB in process, through the same
 * `@clickhouse/client` code as a server) answers what the API served from
 * DuckDB answers: the demo store is built in DuckDB, moved with `chainq
 * copy`'s code, and the same requests go to an app on each store. For every
 * endpoint (rows, verbose rows, aggregates by time and by block, USD values,
 * candles) JSON and CSV bodies are compared byte for byte; Parquet bodies by
 * what a reader sees (docs/storage.md, "The same bytes on both engines"):
 * each column's name, physical type, nullability and reader type, and every
 * value.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainEndpoints, venueEndpoints } from '../../src/catalog/index.ts';
import { DEMO_START, DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey, findKey, listKeys, revokeKey, setKeyPlan } from '../../src/metering/keys.ts';
import { createApp } from '../../src/server/createApp.ts';
import { coveredIntervals, coveredScopes } from '../../src/store/coverage.ts';
import type { Store } from '../../src/store/types.ts';
import { createTestStores } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;

interface Served {
  store: Store;
  app: FastifyInstance;
  key: string;
}

let duck: Served;
let click: Served;
let dir: string;

async function serve(store: Store): Promise<Served> {
  const app = await createApp({ store });
  const { key } = await createKey(store, { plan: 'unlimited' });
  return { store, app, key };
}

beforeAll(async () => {
  // The chDB store and the DuckDB store it was copied from: the same rows.
  const { served, oracle } = await createTestStores(undefined, 'chdb');
  duck = await serve(oracle);
  click = await serve(served);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-parity-'));
});

afterAll(async () => {
  await duck?.app.close();
  await click?.app.close();
  // Closing the chDB store closes its DuckDB oracle too.
  await click?.store.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const get = (s: Served, url: string) => s.app.inject({ method: 'GET', url, headers: { 'x-api-key': s.key } });

/** Requests over every endpoint of the catalog, in the shapes that change what the engine writes. */
async function parityRequests(): Promise<string[]> {
  const out: string[] = [];
  for (const e of chainEndpoints.filter((x) => x.served)) {
    const scopes = await coveredScopes(duck.store, e.id);
    const scope = scopes.includes('ETH') ? 'ETH' : scopes[0];
    if (!scope) continue;
    const lo = (await coveredIntervals(duck.store, e.id, scope))[0]!.lo;
    const network = e.networks.length ? `network=${scope}&` : '';
    let extra = '';
    if (e.protocol === 'erc20') extra = '&token=USDC';
    if (e.protocol === 'trc20') extra = '&token=USDT';
    if (e.protocol === 'dex_v3') extra = '&symbol0=WETH&symbol1=USDC&fee=500';
    const range = `${network}block_start=${lo}&block_end=${lo + 2000}${extra}`;
    out.push(`${e.path}?${range}`, `${e.path}?${range}&verbose=true&with_time=false`);
    if (e.family === 'evm') out.push(`${e.path}?${range}&with_value=true`);
    if (e.aggregate) {
      out.push(`${e.path}/aggregate?${range}&group_by=time&period=1h`, `${e.path}/aggregate?${range}&group_by=block_number&period=100`);
      if (e.family === 'evm' && e.aggregate.valued) out.push(`${e.path}/aggregate?${range}&group_by=time&period=1h&with_value=true`);
    }
  }
  out.push(`/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 600}&token=USDT,USDC&involving_category=exchange&verbose=true`);
  out.push(`/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 600}&token=0xdac17f958d2ee523a2206206994597c13d831ec7&decimals=8`);
  const iso = (ms: number) => new Date(ms).toISOString();
  for (const e of venueEndpoints) out.push(`${e.path}?token=BTC&since=${iso(DEMO_START + 3_600_000)}&until=${iso(DEMO_START + 3 * 3_600_000)}`);
  out.push(`/v1/exchange/venue_a/ohlcv?token=ETH&since=${iso(DEMO_START)}&until=${iso(DEMO_START + 6 * 3_600_000)}&window=15m`);
  return out;
}

/** Headers that make an answer what it is; the request id and timing differ by nature. */
const ANSWER_HEADERS = ['content-type', 'content-disposition', 'x-request-cost', 'x-chainq-covered-range', 'x-chainq-dropped-tokens'];
const answerHeaders = (r: LightMyRequestResponse) => Object.fromEntries(ANSWER_HEADERS.map((h) => [h, r.headers[h]]));

/** What a Parquet reader sees: each column's name, physical type, nullability and type as read, and the rows. */
async function parquetView(body: Buffer, name: string) {
  const file = path.join(dir, `${name}.parquet`);
  fs.writeFileSync(file, body);
  const schema = await engineSql(duck.store).all<{ name: string; type: string | null; repetition_type: string | null }>(
    `SELECT name, type, repetition_type FROM parquet_schema($file) WHERE name <> 'duckdb_schema' AND name <> 'schema'`,
    { file },
  );
  const types = await engineSql(duck.store).all<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet($file)`, { file });
  const rows = await engineSql(duck.store).all<Record<string, unknown>>(`SELECT * FROM read_parquet($file)`, { file });
  return { schema, types: types.map((t) => `${t.column_name} ${t.column_type}`), rows };
}

/** USD value sums: the price join leaves each engine adding a bucket's rows in its own order (docs/storage.md). */
function closeEnough(a: unknown, b: unknown): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') return a === b;
  return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
}

describe('the API on chDB', () => {
  it('serves the catalog, coverage and token directory as on DuckDB', async () => {
    for (const url of ['/v1/protocols', '/v1/tokens', '/v1/coverage']) {
      const [a, b] = [await get(duck, url), await get(click, url)];
      expect(b.statusCode, url).toBe(a.statusCode);
      if (url === '/v1/coverage') {
        // last_advanced is when each store was filled.
        const strip = (body: string) => JSON.stringify(JSON.parse(body), (k, v) => (k === 'last_advanced' ? undefined : v));
        expect(strip(b.body)).toBe(strip(a.body));
      } else {
        expect(b.body, url).toBe(a.body);
      }
    }
  });

  // Over 100 requests in three formats on both engines: about a minute quiet, close to the default 120 s on a loaded machine.
  it("answers every endpoint in JSON and CSV with DuckDB's bytes, and in Parquet with its columns and values", async () => {
    const urls = await parityRequests();
    expect(urls.length).toBeGreaterThan(100);
    let compared = 0;
    for (const [i, url] of urls.entries()) {
      const valuedAggregate = url.includes('/aggregate?') && url.includes('with_value=true');
      for (const format of ['json', 'csv', 'parquet']) {
        const u = `${url}&format=${format}`;
        const [a, b] = [await get(duck, u), await get(click, u)];
        expect(b.statusCode, `${u}: ${b.body.slice(0, 200)}`).toBe(a.statusCode);
        expect(answerHeaders(b), u).toEqual(answerHeaders(a));
        if (a.statusCode !== 200) {
          // A format the endpoint does not serve: the same error.
          expect(b.json(), u).toEqual(a.json());
          continue;
        }
        compared++;
        if (format === 'parquet') {
          const [pa, pb] = [await parquetView(a.rawPayload, `d${i}`), await parquetView(b.rawPayload, `c${i}`)];
          expect(pb.schema, u).toEqual(pa.schema);
          expect(pb.types, u).toEqual(pa.types);
          expect(pb.rows.length, u).toBe(pa.rows.length);
          if (valuedAggregate) {
            const far = pa.rows.flatMap((r, n) =>
              Object.keys(r)
                .filter((k) => !closeEnough(r[k], pb.rows[n]![k]))
                .map((k) => `${n} ${k}`),
            );
            expect(far, u).toEqual([]);
          } else {
            expect(pb.rows, u).toEqual(pa.rows);
          }
        } else if (valuedAggregate) {
          const rows = (r: LightMyRequestResponse) =>
            format === 'json'
              ? (r.json() as { events: Record<string, unknown>[] }).events
              : r.body
                  .trim()
                  .split('\n')
                  .map((line) => Object.fromEntries(line.split(',').map((v, k) => [k, v === '' ? null : Number.isNaN(Number(v)) ? v : Number(v)])));
          const [ra, rb] = [rows(a), rows(b)];
          expect(rb.length, u).toBe(ra.length);
          const far = ra.flatMap((r, n) =>
            Object.keys(r)
              .filter((k) => !closeEnough(r[k], rb[n]![k]))
              .map((k) => `${n} ${k}: ${String(r[k])} ${String(rb[n]![k])}`),
          );
          expect(far, u).toEqual([]);
        } else {
          expect(b.body, u).toBe(a.body);
        }
      }
    }
    expect(compared).toBeGreaterThan(250);
  }, 300_000);

  it('refuses an uncovered range with the same error', async () => {
    const url = `/v1/evm/erc20/events/transfer?network=ETH&block_start=1&block_end=20&token=USDT`;
    const [a, b] = [await get(duck, url), await get(click, url)];
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.json()).toEqual(a.json());
  });

  it('keeps keys in ClickHouse: create, find, move to another plan, revoke', async () => {
    const { key, record } = await createKey(click.store, { plan: 'free', name: 'ch' });
    expect((await findKey(click.store, key))?.id).toBe(record.id);
    expect(await setKeyPlan(click.store, record.id, 'pro')).toBe(1);
    expect((await findKey(click.store, key))?.plan).toBe('pro');
    expect(await revokeKey(click.store, record.prefix)).toBe(1);
    expect(await findKey(click.store, key)).toBeNull();
    const listed = (await listKeys(click.store)).find((k) => k.id === record.id);
    expect(listed?.revokedAt).toBeInstanceOf(Date);
    expect(listed).not.toHaveProperty('keyHash');
  });
});
