/** Tron TRC-20 and TRX transfer endpoints over the demo dataset. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START, DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { isTronBase58, tronHexToBase58 } from '../../src/utils/tronAddress.ts';
import { parseCsv, readParquet } from '../helpers/formats.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const FIRST = DEMO_START_BLOCKS.TRON!;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRC20 = '/v1/tron/trc20/events/transfer';
const TRX = '/v1/tron/native/events/transfer';
const blocks = (a: number, b: number) => `block_start=${FIRST + a}&block_end=${FIRST + b}`;

interface Row {
  block_number: number;
  token: string;
  sender: string;
  receiver: string;
  amount: number;
  time: string;
  tx_id?: string;
}
let t: TestApp;
const json = async (url: string) => {
  const r = await t.get(url);
  expect(r.statusCode, r.body).toBe(200);
  return JSON.parse(r.body) as { status: string; events: Row[]; count: number };
};
const error = async (url: string) => {
  const r = await t.get(url);
  return { ...(JSON.parse(r.body) as { code: string; error: string }), http: r.statusCode };
};

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('tron trc20 transfers', () => {
  it('selects a token by symbol without regard to case, with base58 addresses', async () => {
    const body = await json(`${TRC20}?token=usdt&${blocks(0, 400)}`);
    expect(body.status).toBe('success');
    expect(body.count).toBe(body.events.length);
    expect(body.count).toBeGreaterThan(50);
    for (const e of body.events) {
      expect(e.token).toBe('USDT');
      expect(isTronBase58(e.sender) && isTronBase58(e.receiver)).toBe(true);
      expect(Object.keys(e)).toEqual(['block_number', 'token', 'sender', 'receiver', 'amount', 'time']);
    }
  });

  it('selects a token by base58 contract, exactly or in any letter case, with the same rows as its symbol', async () => {
    const bySymbol = await json(`${TRC20}?token=USDT&${blocks(0, 300)}`);
    const exact = await json(`${TRC20}?token=${USDT}&${blocks(0, 300)}`);
    const lower = await json(`${TRC20}?token=${USDT.toLowerCase()}&${blocks(0, 300)}`);
    expect(exact.events).toEqual(bySymbol.events);
    expect(lower.events).toEqual(bySymbol.events);
  });

  it('accepts a valid contract the registry does not know, and answers it with no rows', async () => {
    const unknown = tronHexToBase58(`41${'12'.repeat(20)}`);
    const body = await json(`${TRC20}?token=${unknown}&${blocks(0, 10)}`);
    expect(body.count).toBe(0);
    // Base58 is case-sensitive: outside the registry, only the exact spelling is a valid address.
    expect(await error(`${TRC20}?token=${unknown.toLowerCase()}&${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'unknown_token' });
  });

  it('refuses a missing, unknown or malformed token', async () => {
    expect(await error(`${TRC20}?${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'missing_parameter' });
    expect(await error(`${TRC20}?token=NOPE&${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'unknown_token' });
    // A contract shape whose checksum fails and that matches no registry address.
    expect(await error(`${TRC20}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u&${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'unknown_token' });
    // TRX is native, not a TRC-20 contract.
    expect(await error(`${TRC20}?token=TRX&${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'unknown_token' });
  });

  it('keeps USDT the largest token by count and by value', async () => {
    const rows = await engineSql(t.oracle).all<{ token: string; n: bigint; v: number }>(`SELECT token, count(*) AS n, sum(amount) AS v FROM tron_trc20_transfer GROUP BY token ORDER BY n DESC`);
    expect(rows[0]!.token).toBe('USDT');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0.6 * rows.reduce((s, r) => s + Number(r.n), 0));
    const stable = rows.filter((r) => ['USDC', 'USDD'].includes(r.token)).reduce((s, r) => s + r.v, 0);
    expect(rows[0]!.v).toBeGreaterThan(10 * stable);
  });

  it('filters by sender, receiver and involving in base58, and refuses other address forms', async () => {
    const all = await json(`${TRC20}?token=USDT&${blocks(0, 2000)}`);
    const sender = all.events[0]!.sender;
    const bySender = await json(`${TRC20}?token=USDT&${blocks(0, 2000)}&sender=${sender}`);
    expect(bySender.count).toBe(all.events.filter((e) => e.sender === sender).length);
    const receiver = all.events[1]!.receiver;
    const byReceiver = await json(`${TRC20}?token=USDT&${blocks(0, 2000)}&receiver=${receiver}`);
    expect(byReceiver.count).toBe(all.events.filter((e) => e.receiver === receiver).length);
    const involving = await json(`${TRC20}?token=USDT&${blocks(0, 2000)}&involving=${sender},${receiver}`);
    expect(involving.count).toBe(all.events.filter((e) => [sender, receiver].includes(e.sender) || [sender, receiver].includes(e.receiver)).length);
    expect(await error(`${TRC20}?token=USDT&${blocks(0, 10)}&sender=0x${'ab'.repeat(20)}`)).toMatchObject({ http: 400, code: 'invalid_parameter' });
    // base58 is case-sensitive: a lowercased address fails its checksum.
    expect(await error(`${TRC20}?token=USDT&${blocks(0, 10)}&sender=${sender.toLowerCase()}`)).toMatchObject({ http: 400, code: 'invalid_parameter' });
    expect(await error(`${TRC20}?token=USDT&${blocks(0, 10)}&sender=${sender}&involving=${sender}`)).toMatchObject({ http: 400, code: 'conflicting_parameters' });
  });

  it('filters by label and category of Tron addresses', async () => {
    const labelled = await engineSql(t.oracle).all<{ address: string; label: string; category: string }>(`SELECT address, label, category FROM labels WHERE network = 'TRON'`);
    const exchanges = new Set(labelled.filter((l) => l.category === 'exchange').map((l) => l.address));
    const binance = new Set(labelled.filter((l) => l.label.toLowerCase().includes('binance')).map((l) => l.address));
    const byCategory = await json(`${TRC20}?token=USDT&${blocks(0, 3000)}&involving_category=EXCHANGE`);
    expect(byCategory.count).toBeGreaterThan(0);
    for (const e of byCategory.events) expect(exchanges.has(e.sender) || exchanges.has(e.receiver)).toBe(true);
    const byLabel = await json(`${TRC20}?token=USDT&${blocks(0, 3000)}&sender_label=binance`);
    expect(byLabel.count).toBeGreaterThan(0);
    for (const e of byLabel.events) expect(binance.has(e.sender)).toBe(true);
    const byReceiverCategory = await json(`${TRC20}?token=USDT&${blocks(0, 3000)}&receiver_category=exchange`);
    for (const e of byReceiverCategory.events) expect(exchanges.has(e.receiver)).toBe(true);
  });

  it('filters by amount, with max_amount=0 meaning no limit', async () => {
    const all = await json(`${TRC20}?token=USDT&${blocks(0, 1000)}`);
    const ranged = await json(`${TRC20}?token=USDT&${blocks(0, 1000)}&min_amount=100&max_amount=1000`);
    expect(ranged.count).toBe(all.events.filter((e) => e.amount >= 100 && e.amount <= 1000).length);
    const unlimited = await json(`${TRC20}?token=USDT&${blocks(0, 1000)}&min_amount=100&max_amount=0`);
    expect(unlimited.count).toBe(all.events.filter((e) => e.amount >= 100).length);
  });

  it('selects by time: since inclusive, until exclusive, rows in block order', async () => {
    const since = new Date(DEMO_START + 3600_000).toISOString();
    const until = new Date(DEMO_START + 3600_000 + 60_000).toISOString();
    const body = await json(`${TRC20}?token=USDT&since=${since}&until=${until}`);
    expect(body.count).toBeGreaterThan(0);
    for (const e of body.events) expect(e.time >= since.replace('.000Z', 'Z') && e.time < until.replace('.000Z', 'Z')).toBe(true);
    const numbers = body.events.map((e) => e.block_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const unix = await json(`${TRC20}?token=USDT&since=${(DEMO_START + 3600_000) / 1000}&until=${(DEMO_START + 3660_000) / 1000}`);
    expect(unix.events).toEqual(body.events);
  });

  it('answers CSV and typed Parquet, and verbose rows carry tx_id', async () => {
    const csv = await t.get(`${TRC20}?token=USDT&${blocks(0, 100)}&format=csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const parsed = parseCsv(csv.body);
    expect(parsed.header).toEqual(['block_number', 'token', 'sender', 'receiver', 'amount', 'time']);
    const parquet = await t.get(`${TRC20}?token=USDT&${blocks(0, 100)}&format=parquet`);
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
    const p = await readParquet(t.oracle, parquet.rawPayload);
    expect(p.columns).toEqual([
      { name: 'block_number', type: 'BIGINT' },
      { name: 'token', type: 'VARCHAR' },
      { name: 'sender', type: 'VARCHAR' },
      { name: 'receiver', type: 'VARCHAR' },
      { name: 'amount', type: 'DOUBLE' },
      { name: 'time', type: 'VARCHAR' },
    ]);
    expect(p.rows.length).toBe(parsed.rows.length);
    const verbose = await json(`${TRC20}?token=USDT&${blocks(0, 20)}&verbose=true`);
    for (const e of verbose.events) expect(e.tx_id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('applies the range rules: one pair, the format limits, and coverage', async () => {
    expect(await error(`${TRC20}?token=USDT`)).toMatchObject({ http: 400, code: 'missing_parameter' });
    expect(await error(`${TRC20}?token=USDT&${blocks(0, 10)}&since=2025-12-01&until=2025-12-02`)).toMatchObject({ http: 400, code: 'conflicting_parameters' });
    expect(await error(`${TRC20}?token=USDT&block_start=${FIRST}`)).toMatchObject({ http: 400, code: 'missing_parameter' });
    expect(await error(`${TRC20}?token=USDT&${blocks(10, 0)}`)).toMatchObject({ http: 400, code: 'invalid_range' });
    expect((await t.get(`${TRC20}?token=USDT&${blocks(0, 10_000)}&format=csv`)).statusCode).toBe(200);
    const tooLarge = await error(`${TRC20}?token=USDT&${blocks(0, 10_001)}`);
    expect(tooLarge).toMatchObject({ http: 400, code: 'range_too_large' });
    expect(tooLarge.error).toContain('format=parquet');
    expect((await t.get(`${TRC20}?token=USDT&${blocks(0, 10_001)}&format=parquet`)).statusCode).toBe(200);
    expect(await error(`${TRC20}?token=USDT&block_start=${FIRST - 100}&block_end=${FIRST + 10}`)).toMatchObject({ http: 400, code: 'invalid_range' });
    expect(await error(`${TRC20}?token=USDT&${blocks(0, 10)}&network=ETH`)).toMatchObject({ http: 400, code: 'unknown_parameter' });
  });
});

describe('tron TRX transfers', () => {
  it('lists TRX transfers in TRX units, with the same filters', async () => {
    const body = await json(`${TRX}?${blocks(0, 500)}`);
    expect(body.count).toBeGreaterThan(10);
    for (const e of body.events) {
      expect(e.token).toBe('TRX');
      expect(isTronBase58(e.sender)).toBe(true);
      // Sun are integers: amounts have at most 6 decimals.
      expect(Math.abs(e.amount * 1e6 - Math.round(e.amount * 1e6))).toBeLessThan(1e-3);
    }
    const min = await json(`${TRX}?${blocks(0, 500)}&min_amount=100`);
    expect(min.count).toBe(body.events.filter((e) => e.amount >= 100).length);
    const cat = await json(`${TRX}?${blocks(0, 3000)}&involving_category=exchange`);
    expect(cat.count).toBeGreaterThan(0);
  });

  it('takes no token parameter', async () => {
    expect(await error(`${TRX}?token=TRX&${blocks(0, 10)}`)).toMatchObject({ http: 400, code: 'unknown_parameter' });
  });
});
