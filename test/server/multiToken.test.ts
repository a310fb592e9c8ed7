/**
 * Several tokens in one query (chainq's extension): `token=A,B,…` on the
 * ERC-20 and TRC-20 endpoints, raw and aggregate, selects exactly the union
 * of the single-token answers at the price of one query; unknown tokens are
 * a 400 naming them unless `ignore_unknown_tokens=true` drops them and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Transfer {
  block_number: number;
  token: string;
  sender: string;
  receiver: string;
  amount: number;
  time: string;
}
type AggRow = Record<string, string | number | null>;

const ETH0 = DEMO_START_BLOCKS.ETH!;
const TRON0 = DEMO_START_BLOCKS.TRON!;
const ERC20 = `/v1/evm/erc20/events/transfer?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 400}&verbose=true`;
const TRC20 = `/v1/tron/trc20/events/transfer?block_start=${TRON0}&block_end=${TRON0 + 400}&verbose=true`;
const USDC_ETH = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

async function events<T = Transfer & { log_index?: number; tx_id: string }>(url: string): Promise<T[]> {
  const res = await t.get(url);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { events: T[] }).events;
}

/** The rows of several single-token answers, in the endpoint's order (block, then log index). */
function merged<T extends { block_number: number; log_index?: number; tx_id: string }>(...lists: T[][]): T[] {
  return lists.flat().sort((a, b) => a.block_number - b.block_number || (a.log_index ?? 0) - (b.log_index ?? 0) || a.tx_id.localeCompare(b.tx_id));
}

describe('ERC-20 with several tokens', () => {
  it('answers the union of the single-token answers, in order, each row naming its token', async () => {
    const usdt = await events(`${ERC20}&token=USDT`);
    const usdc = await events(`${ERC20}&token=USDC`);
    expect(usdt.length).toBeGreaterThan(50);
    expect(usdc.length).toBeGreaterThan(50);
    const both = await events(`${ERC20}&token=USDT,USDC`);
    expect(both).toEqual(merged(usdt, usdc));
    expect(new Set(both.map((r) => r.token))).toEqual(new Set(['USDT', 'USDC']));
    // Symbols and contract addresses mix; repeats count once.
    expect(await events(`${ERC20}&token=usdt,${USDC_ETH.toUpperCase().replace('0X', '0x')},USDT`)).toEqual(both);
  });

  it('costs what one query over the range costs', async () => {
    const one = await t.get(`${ERC20}&token=USDT`);
    const three = await t.get(`${ERC20}&token=USDT,USDC,DAI`);
    expect(three.statusCode).toBe(200);
    expect(three.headers['x-request-cost']).toBe(one.headers['x-request-cost']);
    const est = await t.app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': t.key }, payload: { query: `${ERC20}&token=USDT,USDC,DAI` } });
    expect(est.json().cost).toBe(Number(one.headers['x-request-cost']));
  });

  it('an unknown token is a 400 naming every unknown one, and nothing else is answered', async () => {
    const r = await t.get(`${ERC20}&token=USDT,NOPE,ALSO_NOPE`);
    expect(r.statusCode).toBe(400);
    const body = r.json();
    expect(body).toMatchObject({ code: 'unknown_token', parameter: 'token', unknown: ['NOPE', 'ALSO_NOPE'] });
    expect(body.error).toContain("'NOPE'");
    expect(body.error).toContain("'ALSO_NOPE'");
    expect(body.error).toContain('ignore_unknown_tokens=true');
    expect(r.headers['x-request-cost']).toBe('0');
  });

  it('ignore_unknown_tokens=true drops unknown tokens and names them in X-Chainq-Dropped-Tokens', async () => {
    const usdt = await events(`${ERC20}&token=USDT`);
    const r = await t.get(`${ERC20}&token=USDT,NOPE,${encodeURIComponent('x,y')}&ignore_unknown_tokens=true`);
    expect(r.statusCode).toBe(200);
    expect(r.json().events).toEqual(usdt);
    expect(r.headers['x-chainq-dropped-tokens']).toBe('NOPE,x,y');
    // A name a header cannot carry is percent-encoded; SQL in a token name is just an unknown name.
    const odd = await t.get(`${ERC20}&token=USDT,${encodeURIComponent("é'); DROP TABLE tokens;--")}&ignore_unknown_tokens=true`);
    expect(odd.statusCode).toBe(200);
    expect(decodeURIComponent(String(odd.headers['x-chainq-dropped-tokens']))).toBe("é'); DROP TABLE tokens;--");
    expect((await engineSql(t.oracle).all(`SELECT count(*) AS n FROM tokens`))[0]).toBeTruthy();
    // Without unknown tokens there is no header.
    expect((await t.get(`${ERC20}&token=USDT&ignore_unknown_tokens=true`)).headers['x-chainq-dropped-tokens']).toBeUndefined();
  });

  it('ignore_unknown_tokens=true with no known token left is still unknown_token', async () => {
    const r = await t.get(`${ERC20}&token=NOPE,NADA&ignore_unknown_tokens=true`);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'unknown_token', unknown: ['NOPE', 'NADA'] });
  });

  it('decimals applies only to a single contract address', async () => {
    const r = await t.get(`${ERC20}&token=${USDC_ETH},USDT&decimals=6`);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'decimals' });
  });

  it('the aggregate splits each bucket by token, each token matching its own aggregate', async () => {
    const agg = `/v1/evm/erc20/events/transfer/aggregate?network=ETH&block_start=${ETH0}&block_end=${ETH0 + 400}&group_by=block_number&period=100`;
    const get = async (token: string): Promise<AggRow[]> => {
      const res = await t.get(`${agg}&token=${token}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { events: AggRow[] }).events;
    };
    const usdt = await get('USDT');
    const usdc = await get('USDC');
    expect(usdt[0]).not.toHaveProperty('token');
    // The same token named twice is one token: no split.
    expect(await get('usdt,USDT,0xdac17f958d2ee523a2206206994597c13d831ec7')).toEqual(usdt);
    const both = await get('USDT,USDC');
    expect(both.length).toBe(usdt.length + usdc.length);
    const strip = (rows: AggRow[], token: string) => rows.filter((r) => r.token === token).map(({ token: _, ...rest }) => rest);
    expect(strip(both, 'USDT')).toEqual(usdt);
    expect(strip(both, 'USDC')).toEqual(usdc);
  });
});

describe('TRC-20 with several tokens', () => {
  it('raw and aggregate answer the union of the single-token answers', async () => {
    const usdt = await events(`${TRC20}&token=USDT`);
    const usdc = await events(`${TRC20}&token=TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8`);
    expect(usdt.length).toBeGreaterThan(50);
    expect(usdc.length).toBeGreaterThan(0);
    // Tron rows do not show the log index they are ordered by: compare block order, then the rows as sets.
    const both = await events(`${TRC20}&token=USDT,USDC`);
    expect(both.map((r) => r.block_number)).toEqual(both.map((r) => r.block_number).sort((x, y) => x - y));
    const canon = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(canon(both)).toEqual(canon([...usdt, ...usdc]));

    const agg = `/v1/tron/trc20/events/transfer/aggregate?block_start=${TRON0}&block_end=${TRON0 + 400}&group_by=block_number&period=100`;
    const rows = async (token: string) => ((await t.get(`${agg}&token=${token}`)).json() as { events: AggRow[] }).events;
    const a = await rows('USDT');
    const b = await rows('USDC');
    const key = (r: AggRow) => `${r.block_number ?? r.block_start ?? ''}|${r.token}`;
    expect(await rows('USDT,USDC')).toEqual([...a, ...b].sort((x, y) => (key(x) < key(y) ? -1 : 1)));
  });

  it('an unknown Tron token is named; ignore_unknown_tokens drops it', async () => {
    const bad = await t.get(`${TRC20}&token=USDT,TNotAnAddressAtAllXXXXXXXXXXXXXXXX`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'unknown_token', unknown: ['TNotAnAddressAtAllXXXXXXXXXXXXXXXX'] });
    const ok = await t.get(`${TRC20}&token=USDT,NOPE&ignore_unknown_tokens=true`);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-chainq-dropped-tokens']).toBe('NOPE');
  });
});
