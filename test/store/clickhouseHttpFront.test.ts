/**
 * The test-only ClickHouse HTTP front over chDB (test/helpers/clickhouseHttpFront.ts,
 * test infrastructure standing in for a ClickHouse server) speaks what the real
 * `@clickhouse/client` needs: bound parameters of every kind chainq sends,
 * inserts, settings and database for one request only, errors the client
 * raises as ClickHouseError, authentication; and chainq's ClickHouse store
 * (`--store clickhouse://…`) works through it: schema, `chainq copy`'s code,
 * keys, and the API answering what the API on DuckDB answers.
 */
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS, generateDemo } from '../../src/demo/generate.ts';
import { createKey, findKey, listKeys, revokeKey, setKeyPlan } from '../../src/metering/keys.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createApp } from '../../src/server/createApp.ts';
import { copyDuckDbToClickHouse } from '../../src/store/clickhouse/copyFromDuckDb.ts';
import { createClickHouseStore, type ClickHouseStore } from '../helpers/clickhouseStore.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { parseStoreTarget } from '../../src/store/target.ts';
import { startClickHouseHttpFront, type ClickHouseHttpFront } from '../helpers/clickhouseHttpFront.ts';

const USER = 'chainq';
/** The errors below are expected: the client need not log them. */
const QUIET = { level: ClickHouseLogLevel.OFF };
const PASSWORD = 'p@ss:w/rd';
let dir: string;
let front: ClickHouseHttpFront;
let client: ClickHouseClient;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chfront-'));
  front = await startClickHouseHttpFront({ dir, username: USER, password: PASSWORD });
  client = createClient({ url: front.url, username: USER, password: PASSWORD, log: QUIET });
});

afterAll(async () => {
  await client?.close();
  await front?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const rows = async <T>(c: ClickHouseClient, query: string, query_params: Record<string, unknown> = {}, clickhouse_settings = {}) =>
  (await c.query({ query, query_params, clickhouse_settings, format: 'JSONEachRow' })).json<T>();

describe('the ClickHouse HTTP front (test infrastructure) for @clickhouse/client', () => {
  it('answers ping, both forms', async () => {
    expect(await client.ping()).toEqual({ success: true });
    expect(await client.ping({ select: true })).toEqual({ success: true });
    const res = await fetch(`${front.url}/ping`);
    expect(await res.text()).toBe('Ok.\n');
  });

  it('binds parameters as a server does: text with quotes, backslashes, tabs and newlines; arrays; NULL; 256-bit integers; times', async () => {
    const text = "it's a \\ back\tslash\nand 'quotes' — ünïcode";
    const [r] = await rows<Record<string, unknown>>(
      client,
      `SELECT {s:String} AS s, {a:Array(String)} AS a, {n:Nullable(Int64)} AS n, {u:UInt256} AS u, {i:Int64} AS i,
              {f:Float64} AS f, {t:DateTime64(3, 'UTC')} AS t, {b:Bool} AS b, {e:Array(Int64)} AS e`,
      {
        s: text,
        a: ["x'y", 'z\\w', ''],
        n: null,
        u: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
        i: -42,
        f: 1.5,
        t: new Date('2025-12-01T10:00:00.123Z'),
        b: true,
        e: [],
      },
      { output_format_json_quote_64bit_integers: 1 },
    );
    expect(r).toEqual({
      s: text,
      a: ["x'y", 'z\\w', ''],
      n: null,
      u: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      i: '-42',
      f: 1.5,
      t: '2025-12-01 10:00:00.123',
      b: true,
      e: [],
    });
  });

  it('inserts rows (JSONEachRow objects, a CSV stream) and reports them in the summary', async () => {
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS t1' });
    await client.command({ query: 'CREATE TABLE IF NOT EXISTS t1.kv (k String, v Int64) ENGINE = MergeTree ORDER BY k' });
    const a = await client.insert({
      table: 't1.kv',
      values: [
        { k: 'a', v: 1 },
        { k: "b'\\", v: 2 },
      ],
      format: 'JSONEachRow',
    });
    expect(a.summary?.written_rows).toBe('2');
    await client.insert({ table: 't1.kv', values: Readable.from(['"c",3\n', '"d",4\n'], { objectMode: false }), format: 'CSV' });
    expect(await rows(client, 'SELECT k, v FROM t1.kv ORDER BY k')).toEqual([
      { k: 'a', v: 1 },
      { k: "b'\\", v: 2 },
      { k: 'c', v: 3 },
      { k: 'd', v: 4 },
    ]);
    const e = await client.exec({ query: 'SELECT k FROM t1.kv ORDER BY k FORMAT CSVWithNames' });
    expect(e.summary?.result_rows).toBe('4');
    expect(await new Response(Readable.toWeb(e.stream) as ReadableStream).text()).toBe('"k"\n"a"\n"b\'\\"\n"c"\n"d"\n');
  });

  it('applies settings and the database to their own request only', async () => {
    expect(await rows(client, `SELECT getSetting('max_threads') AS m, timezone() AS tz`, {}, { max_threads: 3, session_timezone: 'Asia/Tokyo' })).toEqual([{ m: 3, tz: 'Asia/Tokyo' }]);
    const [after] = await rows<{ m: number; tz: string }>(client, `SELECT getSetting('max_threads') AS m, timezone() AS tz`);
    expect(after!.m).not.toBe(3);
    expect(after!.tz).not.toBe('Asia/Tokyo');
    const inT1 = createClient({ url: front.url, username: USER, password: PASSWORD, database: 't1', log: QUIET });
    try {
      expect(await rows(inT1, 'SELECT currentDatabase() AS d, toUInt8(count()) AS n FROM kv')).toEqual([{ d: 't1', n: 4 }]);
    } finally {
      await inT1.close();
    }
    expect(await rows(client, 'SELECT currentDatabase() AS d')).toEqual([{ d: 'default' }]);
  });

  it('answers errors as a server does, which the client raises as ClickHouseError', async () => {
    const err = await client.query({ query: 'SELECT * FROM t1.nope', format: 'JSONEachRow' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect(err).toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    const bad = await client.query({ query: 'SELECT {x:Int32}', query_params: { x: 'abc' } }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: '457', type: 'BAD_QUERY_PARAMETER' });
    const setting = await client.query({ query: 'SELECT 1', clickhouse_settings: { no_such_setting: 1 } as never }).catch((e: unknown) => e);
    expect(setting).toMatchObject({ code: '115', type: 'UNKNOWN_SETTING' });
    const raw = await fetch(`${front.url}/?query=${encodeURIComponent('SELEC 1')}`, { headers: { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` } });
    expect(raw.status).toBe(500);
    expect(raw.headers.get('x-clickhouse-exception-code')).toBe('62');
    expect(await raw.text()).toMatch(/^Code: 62\. DB::Exception: .*\(SYNTAX_ERROR\) \(version [\d.]+\)\n$/s);
  });

  it('refuses wrong credentials with code 516', async () => {
    const wrong = createClient({ url: front.url, username: USER, password: 'wrong', log: QUIET });
    try {
      await expect(rows(wrong, 'SELECT 1')).rejects.toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
    } finally {
      await wrong.close();
    }
  });
});

describe("chainq's ClickHouse store through the front (--store clickhouse://…)", () => {
  const ETH0 = DEMO_START_BLOCKS.ETH!;
  let duck: Store;
  let ch: ClickHouseStore;
  let duckApp: FastifyInstance;
  let chApp: FastifyInstance;
  let duckKey: string;
  let chKey: string;

  beforeAll(async () => {
    duck = await createStore({ dataDir: null, threads: 2 });
    await loadSeed(duck);
    await generateDemo(duck, { days: 0.1 });
    const target = parseStoreTarget(`clickhouse://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${front.port}/chainq`);
    ch = await createClickHouseStore({
      target:
        target.engine === 'clickhouse'
          ? target
          : (() => {
              throw new Error('not a ClickHouse target');
            })(),
    });
    const report = await copyDuckDbToClickHouse(duck, ch, 'front-test');
    expect(report.mismatches).toEqual([]);
    duckApp = await createApp({ store: duck });
    chApp = await createApp({ store: ch });
    duckKey = (await createKey(duck, { plan: 'unlimited' })).key;
    chKey = (await createKey(ch, { plan: 'unlimited' })).key;
  });

  afterAll(async () => {
    await chApp?.close();
    await duckApp?.close();
    await ch?.close();
    await duck?.close();
  });

  it('creates the schema once per database and opens it again, read-only too', async () => {
    const again = await createClickHouseStore({ target: { engine: 'clickhouse', url: front.url, username: USER, password: PASSWORD, database: 'chainq' } });
    await again.close();
    const ro = await createClickHouseStore({ target: { engine: 'clickhouse', url: front.url, username: USER, password: PASSWORD, database: 'chainq' }, readOnly: true });
    expect(await ro.query<{ n: number }>(`SELECT count() AS n FROM ${ro.table('evm_erc20_transfer')}`)).toEqual([{ n: expect.any(Number) }]);
    await ro.close();
  });

  it.each([
    '/v1/coverage',
    '/v1/tokens',
    `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 50}&token=USDT`,
    `/v1/evm/erc20/events/transfer/aggregate?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 300}&token=USDT&group_by=time&period=1h`,
  ])('the API answers %s as on DuckDB', async (url) => {
    const a = await duckApp.inject({ method: 'GET', url, headers: { 'x-api-key': duckKey } });
    const b = await chApp.inject({ method: 'GET', url, headers: { 'x-api-key': chKey } });
    expect(b.statusCode, b.body.slice(0, 300)).toBe(200);
    expect(a.statusCode).toBe(200);
    // last_advanced is when each store was filled.
    const strip = (body: string) => JSON.parse(body, (k, v: unknown) => (k === 'last_advanced' ? undefined : v)) as unknown;
    expect(strip(b.body)).toEqual(strip(a.body));
  });

  it('keeps keys: created, found, moved to another plan, revoked', async () => {
    const { key, record } = await createKey(ch, { plan: 'free', name: 'through the front' });
    expect(await findKey(ch, key)).toMatchObject({ id: record.id, plan: 'free' });
    expect(await setKeyPlan(ch, record.id, 'pro')).toBe(1);
    expect(await findKey(ch, key)).toMatchObject({ id: record.id, plan: 'pro' });
    expect(await revokeKey(ch, record.prefix)).toBe(1);
    expect(await findKey(ch, key)).toBeNull();
    expect((await listKeys(ch)).find((k) => k.id === record.id)).toMatchObject({ plan: 'pro', revokedAt: expect.any(Date) });
  });
});
