/**
 * Label namespaces: a key's own labels, uploaded as CSV, matched by the
 * label and category filters under wallet_namespace; invisible to every
 * other key (404, exactly as if absent); bad CSV named by line and reason;
 * label text that looks like SQL stays text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/createApp.ts';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createKey, listKeys } from '../../src/metering/keys.ts';
import { LABEL_LIMITS } from '../../src/reference/userLabels.ts';
import { countRows, engineSql } from '../helpers/engineSql.ts';
import { createReadOnlyTestStore, createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
let other: string;
beforeAll(async () => {
  t = await createTestApp();
  other = (await createKey(t.store, { plan: 'unlimited' })).key;
});
afterAll(async () => {
  await t?.close();
});

interface Transfer {
  sender: string;
  receiver: string;
  amount: number;
}
const ETH0 = DEMO_START_BLOCKS.ETH!;
const Q = `/v1/evm/erc20/events/transfer?network=ETH&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 600}`;

const put = (ns: string, csv: string, key = t.key, contentType = 'text/csv') =>
  t.app.inject({ method: 'PUT', url: `/v1/labels/${ns}`, headers: { 'x-api-key': key, 'content-type': contentType }, payload: csv });
const as = (key: string, method: 'GET' | 'DELETE', url: string) => t.app.inject({ method, url, headers: { 'x-api-key': key } });
const events = async (url: string, key = t.key): Promise<Transfer[]> => {
  const r = await as(key, 'GET', url);
  expect(r.statusCode, r.body).toBe(200);
  return (r.json() as { events: Transfer[] }).events;
};

let all: Transfer[];
let whales: string[];
beforeAll(async () => {
  all = await events(Q);
  // Addresses the shared label table does not know, so that only the namespace can match them.
  const known = new Set((await engineSql(t.oracle).all<{ address: string }>(`SELECT address FROM labels`)).map((r) => r.address));
  whales = [...new Set(all.map((r) => r.sender))].filter((a) => !known.has(a)).slice(0, 3);
  expect(whales.length).toBe(3);
});

describe('PUT, GET, DELETE /v1/labels/{namespace}', () => {
  it("creates (201), replaces (200), lists and returns the CSV of the caller's namespace", async () => {
    const csv = `address,label,category\n${whales[0]},Whale One,whale\n${whales[1]!.toUpperCase().replace('0X', '0x')},Whale Two,whale\n`;
    const created = await put('mine', csv);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'success', namespace: 'mine', rows: 2 });
    const replaced = await put('MINE', `address,label,category,network\n${whales[0]},Whale One,whale,\n${whales[1]},Whale Two,whale,eth\n${whales[2]},"Whale, Three",whale,ETH\n`);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().rows).toBe(3);
    const got = await as(t.key, 'GET', '/v1/labels/mine');
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(got.body).toBe(`address,label,category,network\n${whales[0]},Whale One,whale,\n${whales[1]},Whale Two,whale,ETH\n${whales[2]},"Whale, Three",whale,ETH\n`);
    expect((await as(t.key, 'GET', '/v1/labels')).json()).toEqual({ namespaces: [expect.objectContaining({ namespace: 'mine', rows: 3 })] });
    expect(got.headers['x-request-cost']).toBe('0');
  });

  it('another key cannot read, list, change, delete or filter by it: 404, exactly as for a namespace nobody has', async () => {
    const theirs = await as(other, 'GET', '/v1/labels/mine');
    const nobody = await as(other, 'GET', '/v1/labels/nobody-has-this');
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe('not_found');
    expect(theirs.json().error).toBe(nobody.json().error.replaceAll('nobody-has-this', 'mine'));
    expect((await as(other, 'GET', '/v1/labels')).json()).toEqual({ namespaces: [] });
    expect((await as(other, 'DELETE', '/v1/labels/mine')).statusCode).toBe(404);
    const filtered = await as(other, 'GET', `${Q}&involving_category=whale&wallet_namespace=mine`);
    expect(filtered.statusCode).toBe(404);
    expect(filtered.headers['x-request-cost']).toBe('0');
    const estimate = await t.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': other }, payload: { query: `${Q}&involving_category=whale&wallet_namespace=mine` } });
    expect(estimate.statusCode).toBe(404);
    // Its own namespace of the same name is its own: the first key's is untouched.
    expect((await put('mine', `address,label,category\n${whales[0]},Not a whale,shrimp\n`, other)).statusCode).toBe(201);
    expect((await events(`${Q}&sender_category=shrimp&wallet_namespace=mine`, other)).length).toBeGreaterThan(0);
    expect(await events(`${Q}&sender_category=shrimp&wallet_namespace=mine`)).toEqual([]);
    expect((await as(t.key, 'GET', '/v1/labels/mine')).body).toContain('Whale One');
    expect((await as(other, 'DELETE', '/v1/labels/mine')).json()).toMatchObject({ status: 'success', deleted: true });
    expect((await as(t.key, 'GET', '/v1/labels/mine')).statusCode).toBe(200);
  });
});

describe('wallet_namespace on the filters', () => {
  it("the category and label filters also match the namespace's labels, and only with it", async () => {
    const set = new Set(whales);
    const byCategory = await events(`${Q}&involving_category=whale&wallet_namespace=mine`);
    expect(byCategory).toEqual(all.filter((r) => set.has(r.sender) || set.has(r.receiver)));
    expect(byCategory.length).toBeGreaterThan(0);
    expect(await events(`${Q}&involving_category=whale`)).toEqual([]);
    const byLabel = await events(`${Q}&sender_label=TWO,three&wallet_namespace=mine`);
    expect(byLabel).toEqual(all.filter((r) => r.sender === whales[1] || r.sender === whales[2]));
    // The shared labels still match with a namespace given.
    expect(await events(`${Q}&involving_category=exchange&wallet_namespace=mine`)).toEqual(await events(`${Q}&involving_category=exchange`));
  });

  it('alone, without a label or category filter, filters nothing and answers 200 (it was a 500)', async () => {
    expect(await events(`${Q}&wallet_namespace=mine`)).toEqual(all);
    const agg = `/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 600}&group_by=block_number&period=1000`;
    const r = await as(t.key, 'GET', `${agg}&wallet_namespace=mine`);
    expect(r.statusCode).toBe(200);
    expect(r.json().events[0].count).toBe(all.length);
    // The namespace is still checked: one the key does not have is a 404.
    expect((await as(t.key, 'GET', `${Q}&wallet_namespace=absent`)).statusCode).toBe(404);
  });

  it('works on aggregates, and names a namespace the key does not have as 404', async () => {
    const agg = `/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDT&block_start=${ETH0}&block_end=${ETH0 + 600}&group_by=block_number&period=1000`;
    const r = await as(t.key, 'GET', `${agg}&sender_category=whale&wallet_namespace=mine`);
    expect(r.statusCode).toBe(200);
    expect(r.json().events[0].count).toBe(all.filter((x) => whales.includes(x.sender)).length);
    expect((await as(t.key, 'GET', `${agg}&sender_category=whale&wallet_namespace=absent`)).statusCode).toBe(404);
    expect((await as(t.key, 'GET', `${Q}&wallet_namespace=${encodeURIComponent('../x')}`)).json()).toMatchObject({ code: 'invalid_parameter', parameter: 'namespace' });
  });

  it('is offered exactly on the routes with label or category filters', async () => {
    const { dataRoutes } = await import('../../src/catalog/derive/routes.ts');
    for (const r of dataRoutes()) {
      const labelled = Object.values(r.endpoint.filters).some((f) => f.kind === 'label' || f.kind === 'category');
      expect('wallet_namespace' in r.params, r.path).toBe(labelled);
    }
  });
});

describe('label text is data', () => {
  it('SQL and LIKE wildcards in labels and filters match literally and change nothing', async () => {
    const evil = `x'); DROP TABLE labels; --`;
    const csv = `address,label,category\n${whales[0]},"${evil}",whale\n${whales[1]},100%_sure,"cat'); DELETE FROM api_keys; --"\n`;
    expect((await put('evil', csv)).statusCode).toBe(201);
    expect(await events(`${Q}&sender_label=${encodeURIComponent("'); drop table")}&wallet_namespace=evil`)).toEqual(all.filter((r) => r.sender === whales[0]));
    expect(await events(`${Q}&sender_label=%25&wallet_namespace=evil`)).toEqual(all.filter((r) => r.sender === whales[1]));
    expect(await events(`${Q}&sender_label=_&wallet_namespace=evil`)).toEqual(all.filter((r) => r.sender === whales[1]));
    expect(await events(`${Q}&sender_category=${encodeURIComponent("cat'); delete from api_keys; --")}&wallet_namespace=evil`)).toEqual(all.filter((r) => r.sender === whales[1]));
    expect(await countRows(t.store, 'labels')).toBeGreaterThan(0);
    expect(await listKeys(t.store)).toHaveLength(2);
    expect((await as(t.key, 'GET', '/v1/labels/evil')).body).toContain(`${whales[0]},${evil},whale,\n`);
  });
});

describe('bad uploads', () => {
  const bad = async (csv: string, line: number, reason: RegExp) => {
    const r = await put('bad', csv);
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_body', line });
    expect(r.json().reason).toMatch(reason);
    expect(r.json().error).toContain(`line ${line}`);
  };

  it('names the line and the reason, and stores nothing', async () => {
    await bad('addr,label,category\n', 1, /header must be address,label,category/);
    await bad(`address,label,category\n${whales[0]},a,b\nnot-an-address,b,c\n`, 3, /not an EVM, Tron or Bitcoin address/);
    await bad(`address,label,category\n${whales[0]},a,b,c\n`, 2, /expected 3 fields, got 4/);
    await bad(`address,label,category\n\n${whales[0]},,b\n`, 3, /label is empty/);
    await bad(`address,label,category,network\n${whales[0]},a,b,MOON\n`, 2, /unknown network 'MOON'/);
    await bad(`address,label,category\n${whales[0]},"unterminated,b\n`, 2, /not valid CSV/);
    await bad(`address,label,category\n${whales[0]},${'x'.repeat(LABEL_LIMITS.labelChars + 1)},b\n`, 2, /longer than 200/);
    expect((await as(t.key, 'GET', '/v1/labels/bad')).statusCode).toBe(404);
  });

  it('needs text/csv, a valid name, and stays within the documented limits', async () => {
    expect((await put('x', 'address,label,category\n', t.key, 'text/plain')).json()).toMatchObject({
      code: 'unsupported_media_type',
      error: 'send the labels as Content-Type: text/csv, with the header address,label,category[,network]',
    });
    expect((await put('x', '{}', t.key, 'application/json')).json()).toMatchObject({ code: 'unsupported_media_type' });
    expect((await put('Bad Name!', 'address,label,category\n')).json()).toMatchObject({ code: 'invalid_parameter', parameter: 'namespace' });
    const big = await put('huge', `address,label,category\n${`${whales[0]},${'x'.repeat(150)},c\n`.repeat(Math.ceil(LABEL_LIMITS.bytes / 180))}`);
    expect(big.statusCode).toBe(400);
    expect(big.json().code).toBe('invalid_body');
    const key = (await createKey(t.store, { plan: 'unlimited' })).key;
    for (let i = 0; i < LABEL_LIMITS.namespaces; i++) expect((await put(`n${i}`, 'address,label,category\n', key)).statusCode).toBe(201);
    const over = await put('one-too-many', 'address,label,category\n', key);
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'invalid_parameter', limit: LABEL_LIMITS.namespaces });
    expect((await put('n0', `address,label,category\n${whales[0]},a,b\n`, key)).statusCode).toBe(200);
  });
});

describe('a read-only store (Redis mode)', () => {
  it('refuses to change labels with 503 unavailable, stores nothing, and still reads', async () => {
    const { store, key, close } = await createReadOnlyTestStore();
    const app = await createApp({ store });
    try {
      const r = await app.inject({ method: 'PUT', url: '/v1/labels/x', headers: { 'x-api-key': key, 'content-type': 'text/csv' }, payload: 'address,label,category\n' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ code: 'unavailable' });
      expect((await app.inject({ method: 'GET', url: '/v1/labels', headers: { 'x-api-key': key } })).json()).toEqual({ namespaces: [] });
    } finally {
      await app.close();
      await close();
    }
  });
});
