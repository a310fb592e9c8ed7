/** What the aggregate planner decides besides the SQL: cost, coverage, and one query per request. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dataRoutes, type DataRoute } from '../../src/catalog/derive/routes.ts';
import { ApiError } from '../../src/errors/apiError.ts';
import { planAggregate } from '../../src/query/planAggregate.ts';
import { planRaw } from '../../src/query/planRaw.ts';
import { resolvePool } from '../../src/query/resolve.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

// resolvePool as it is, counted: the planners' module graph gets this one.
vi.mock('../../src/query/resolve.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/query/resolve.ts')>();
  return { ...original, resolvePool: vi.fn(original.resolvePool) };
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const route = (path: string): DataRoute => {
  const r = dataRoutes().find((x) => x.path === path);
  if (!r) throw new Error(`no route ${path}`);
  return r;
};

describe('planAggregate', () => {
  it('charges half the block range, at least 100, with the network discount', async () => {
    const eth = await planAggregate({ store: t.store }, route('/v1/evm/native/events/transfer/aggregate'), {
      network: 'ETH',
      block_start: 23_910_000,
      block_end: 23_913_599,
      group_by: 'time',
      period: '1h',
    });
    expect(eth.cost.cost).toBe(1800);
    expect(eth.cost.breakdown).toMatchObject({ is_aggregate: true, aggregate_discount: 0.5, block_range: 3599 });
    const raw = await planRaw({ store: t.store }, route('/v1/evm/native/events/transfer'), { network: 'ETH', block_start: 23_910_000, block_end: 23_913_599 });
    expect(raw.cost.cost).toBe(3599);
    const arb = await planAggregate({ store: t.store }, route('/v1/evm/native/events/transfer/aggregate'), {
      network: 'ARB',
      block_start: 405_000_000,
      block_end: 405_010_000,
      group_by: 'block_number',
      period: '100',
    });
    expect(arb.cost.cost).toBe(1000); // 10,000 × 0.2 × 0.5
    const small = await planAggregate({ store: t.store }, route('/v1/evm/native/events/transfer/aggregate'), {
      network: 'ETH',
      block_start: 23_910_000,
      block_end: 23_910_010,
      group_by: 'time',
      period: '1h',
    });
    expect(small.cost.cost).toBe(100);
  });

  it('is one SELECT whose every request value is a bound parameter', async () => {
    const p = await planAggregate({ store: t.store }, route('/v1/evm/erc20/events/transfer/aggregate'), {
      network: 'ETH',
      block_start: 23_910_000,
      block_end: 23_913_599,
      token: 'USDC',
      min_amount: 12.5,
      group_by: 'time',
      period: '13m',
      sender: '0x00000000000000000000000000000000000000aa',
    });
    expect(p.sql.trim().startsWith('SELECT')).toBe(true);
    expect(p.sql).not.toContain(';');
    for (const literal of ['23910000', '12.5', '780000', '0x00000000000000000000000000000000000000aa']) expect(p.sql).not.toContain(literal);
    expect(Object.values(p.params)).toEqual(expect.arrayContaining([23_910_000, 12.5, 780_000, '0x00000000000000000000000000000000000000aa']));
    expect(p.columns).toEqual(['time_start', 'time_end', 'agg_amount', 'count']);
  });

  it('refuses a range that was never ingested, naming the missing blocks', async () => {
    const err = await planAggregate({ store: t.store }, route('/v1/evm/native/events/transfer/aggregate'), {
      network: 'ETH',
      block_start: 23_909_000,
      block_end: 23_910_500,
      group_by: 'block_number',
      period: '100',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_range', extra: { missing_blocks: [[23_909_000, 23_909_998]] } });
  });

  it("resolves the pool once: the selection's pool filter finds it, and the pivot expands over its tokens in the request's order", async () => {
    const swaps = route('/v1/evm/dex_v3/events/swap/aggregate');
    const plan = (symbol0: string, symbol1: string) =>
      planAggregate({ store: t.store }, swaps, {
        network: 'ETH',
        block_start: 23_910_000,
        block_end: 23_913_599,
        symbol0,
        symbol1,
        fee: 500,
        group_by: 'time',
        period: '1h',
      });
    vi.mocked(resolvePool).mockClear();
    const a = await plan('WETH', 'USDC');
    expect(resolvePool).toHaveBeenCalledTimes(1);
    const pool = (await vi.mocked(resolvePool).mock.results[0]!.value) as Awaited<ReturnType<typeof resolvePool>>;
    expect(Object.values(a.params)).toContain(pool.address);
    expect(a.columns.slice(2, 6)).toEqual(['agg_WETH_sold', 'agg_WETH_bought', 'agg_USDC_sold', 'agg_USDC_bought']);
    const b = await plan('usdc', 'eth');
    expect(resolvePool).toHaveBeenCalledTimes(2);
    expect(b.columns.slice(2, 6)).toEqual(['agg_USDC_sold', 'agg_USDC_bought', 'agg_WETH_sold', 'agg_WETH_bought']);
  });
});
