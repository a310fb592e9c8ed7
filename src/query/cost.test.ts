/**
 * The one cost function against the formulas and tables of docs/metering.md
 * ("What a request costs"), for every endpoint family.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../catalog/index.ts';
import type { CostClass } from '../catalog/types.ts';
import { computeCost, roundHalfUp } from './cost.ts';
import { buildEstimate } from './estimate.ts';
import type { QueryRange } from './range.ts';

const BLOCKS: CostClass = { kind: 'blocks' };
const blocks = (start: number, end: number): QueryRange => ({ kind: 'blocks', start, end });
const T0 = Date.UTC(2025, 11, 1);
const seconds = (s: number): QueryRange => ({ kind: 'time', since: T0, until: T0 + s * 1000 });
const HOUR = 3600;
const DAY = 86_400;
const cost = (network: string, range: QueryRange, aggregate = false, costClass: CostClass = BLOCKS) => computeCost({ costClass, network, range, aggregate }).cost;

describe('block cost: max(100, round(block_range × network_discount × aggregate_discount))', () => {
  it.each([
    ['ETH raw 1,000 blocks', 'ETH', blocks(0, 1000), false, 1000],
    ['ETH raw 10,000 blocks', 'ETH', blocks(5, 10_005), false, 10_000],
    ['ETH raw 50 blocks: the 100 minimum', 'ETH', blocks(0, 50), false, 100],
    ['ETH raw one block (start = end): the minimum', 'ETH', blocks(7, 7), false, 100],
    ['ETH aggregate 10,000 blocks: half', 'ETH', blocks(0, 10_000), true, 5000],
    ['ETH aggregate 150 blocks: 75 → the minimum', 'ETH', blocks(0, 150), true, 100],
    ['ETH aggregate 1,001 blocks: 500.5 rounds half up', 'ETH', blocks(0, 1001), true, 501],
    ['ARB raw 10,000 blocks: 0.2 discount', 'ARB', blocks(0, 10_000), false, 2000],
    ['ARB raw 400 blocks: 80 → the minimum', 'ARB', blocks(0, 400), false, 100],
    ['ARB aggregate 1,000,000 blocks: 0.2 × 0.5', 'ARB', blocks(0, 1_000_000), true, 100_000],
    ['ARB aggregate 2,005 blocks: 200.5 rounds half up', 'ARB', blocks(0, 2005), true, 201],
    ['POLYGON raw: no discount', 'POLYGON', blocks(0, 2500), false, 2500],
    ['network code is case-insensitive', 'arb', blocks(0, 10_000), false, 2000],
    ['TRON raw 5,000 blocks: like EVM, discount 1.0', 'TRON', blocks(0, 5000), false, 5000],
    ['TRON raw 20 blocks: the minimum', 'TRON', blocks(0, 20), false, 100],
    ['TRON aggregate 5,000 blocks: half', 'TRON', blocks(0, 5000), true, 2500],
    ['BTC raw 144 blocks', 'BTC', blocks(0, 144), false, 144],
    ['BTC aggregate 144 blocks: 72 → the minimum', 'BTC', blocks(0, 144), true, 100],
    ['BTC aggregate 1,008 blocks', 'BTC', blocks(0, 1008), true, 504],
  ])('%s', (_name, network, range, aggregate, expected) => {
    expect(cost(network, range, aggregate)).toBe(expected);
  });

  it('describes the formula with its numbers and marks block ranges as such', () => {
    const c = computeCost({ costClass: BLOCKS, network: 'ARB', range: blocks(100, 10_100), aggregate: true });
    expect(c.breakdown).toEqual({
      network: 'arb',
      network_discount: 0.2,
      is_aggregate: true,
      aggregate_discount: 0.5,
      range_type: 'block',
      block_range: 10_000,
      estimated_from_time: false,
      block_cost: 1000,
      formula: expect.any(String),
    });
    expect(c.breakdown.formula).toBe('block_range = 10100 - 100 = 10000; cost = max(100, round(10000 × 0.2 network discount (ARB) × 0.5 aggregate discount)) = 1000');
  });
});

describe('time ranges: block_range = round(seconds × blocks_per_day / 86400)', () => {
  // The shipped table (docs/metering.md, "What a request costs").
  const TABLE: Record<string, number> = {
    ETH: 7200,
    ARB: 345_600,
    OP: 43_200,
    BASE: 43_200,
    POLYGON: 43_200,
    AVAX: 43_200,
    LINEA: 43_200,
    BLAST: 43_200,
    ZORA: 43_200,
    WORLD: 43_200,
    BERA: 43_200,
    SONEIUM: 43_200,
    ZIRCUIT: 43_200,
    MANTLE: 43_200,
    MODE: 43_200,
    BSC: 115_200,
    GNOSIS: 17_280,
    SCROLL: 28_800,
    ZK: 86_400,
    CELO: 86_400,
    UNI: 86_400,
    TRON: 28_800,
    BTC: 144,
  };

  it.each(Object.entries(TABLE))('%s: one day estimates %i blocks', (network, perDay) => {
    const c = computeCost({ costClass: BLOCKS, network, range: seconds(DAY), aggregate: false });
    expect(c.breakdown).toMatchObject({ block_range: perDay, estimated_from_time: true, range_type: 'time' });
    const discount = network === 'ARB' ? 0.2 : 1;
    expect(c.cost).toBe(Math.max(100, Math.round(perDay * discount)));
  });

  it.each([
    ['ETH 1 hour raw', 'ETH', HOUR, false, 300],
    ['ETH 1 day aggregate', 'ETH', DAY, true, 3600],
    ['ARB 1 hour raw: 14,400 blocks × 0.2', 'ARB', HOUR, false, 2880],
    ['BSC 1 hour', 'BSC', HOUR, false, 4800],
    ['ETH 10 minutes: 50 blocks → the minimum', 'ETH', 600, false, 100],
    ['ETH 90 s: 7.5 blocks rounds half up to 8 → the minimum', 'ETH', 90, false, 100],
    ['BTC 7 days aggregate: 1,008 × 0.5', 'BTC', 7 * DAY, true, 504],
    ['TRON 2 hours raw', 'TRON', 2 * HOUR, false, 2400],
  ])('%s', (_name, network, s, aggregate, expected) => {
    expect(cost(network, seconds(s), aggregate)).toBe(expected);
  });

  it('rounds the estimated block range half up', () => {
    // 90 s on ETH is 7.5 blocks.
    expect(computeCost({ costClass: BLOCKS, network: 'ETH', range: seconds(90), aggregate: false }).breakdown).toMatchObject({ block_range: 8 });
  });

  it('explains the estimate in the formula', () => {
    const c = computeCost({ costClass: BLOCKS, network: 'ETH', range: seconds(DAY), aggregate: true });
    expect(c.breakdown.formula).toBe(
      'block_range = round(86400 s × 7200 blocks/day ÷ 86400 s/day) = 7200 (estimated from time); cost = max(100, round(7200 × 1 network discount (ETH) × 0.5 aggregate discount)) = 3600',
    );
  });

  it('uses a configured blocks-per-day table when one is given', () => {
    const c = computeCost({ costClass: BLOCKS, network: 'ETH', range: seconds(DAY), aggregate: false }, () => 10_000);
    expect(c.cost).toBe(10_000);
  });
});

describe('day cost of the exchange venues', () => {
  // docs/venues-tron-btc.md, "Exchange venues": [endpoint id, cost per day, minimum].
  const TABLE: [string, number, number][] = [
    ['exchange/venue_a/raw_trades', 1000, 0],
    ['exchange/venue_a/ohlcv', 100, 0],
    ['exchange/venue_a/book_depth', 100, 0],
    ['exchange/venue_a/open_interest', 10, 0],
    ['exchange/venue_a/funding_rate', 10, 0],
    ['exchange/venue_a/long_short_ratios', 10, 0],
    ['exchange/venue_b/fills', 1000, 100],
    ['exchange/venue_b/raw_trades', 1000, 100],
    ['exchange/venue_b/ohlcv', 100, 100],
    ['exchange/venue_b/positions', 100, 100],
    ['exchange/venue_b/funding', 10, 100],
  ];

  it.each(TABLE)('the catalog prices %s at %i per day, minimum %i', (id, perDay, minimum) => {
    const e = catalog.find((x) => x.id === id);
    expect(e?.cost).toEqual({ kind: 'days', perDay, minimum });
  });

  it('every venue endpoint has a day cost and every chain endpoint a block cost', () => {
    for (const e of catalog) expect(e.cost.kind).toBe(e.family === 'exchange' ? 'days' : 'blocks');
  });

  const dayCost = (id: string, s: number) => {
    const e = catalog.find((x) => x.id === id)!;
    return computeCost({ costClass: e.cost, network: '', range: seconds(s), aggregate: false });
  };

  it.each([
    ['venue_b 7 days at 1,000 costs 7,000', 'exchange/venue_b/raw_trades', 7 * DAY, 7000],
    ['venue_b 7 days at 100 costs 700', 'exchange/venue_b/ohlcv', 7 * DAY, 700],
    ['venue_b 7 days at 10 costs the 100 minimum', 'exchange/venue_b/funding', 7 * DAY, 100],
    ['venue_b 31 days at 10 costs 310', 'exchange/venue_b/funding', 31 * DAY, 310],
    ['venue_a 7 days of trades cost 7,000', 'exchange/venue_a/raw_trades', 7 * DAY, 7000],
    ['venue_a 7 days at 10 cost 70: no minimum on venue_a', 'exchange/venue_a/funding_rate', 7 * DAY, 70],
    ['venue_a one hour counts as one day', 'exchange/venue_a/open_interest', HOUR, 10],
    ['a partial day is a whole day: 25 hours are 2 days', 'exchange/venue_a/ohlcv', 25 * HOUR, 200],
    ['exactly one day is one day', 'exchange/venue_a/raw_trades', DAY, 1000],
  ])('%s', (_name, id, s, expected) => {
    expect(dayCost(id, s).cost).toBe(expected);
  });

  it('gives a day breakdown with days, cost_per_day and the formula', () => {
    expect(dayCost('exchange/venue_b/funding', 7 * DAY).breakdown).toEqual({
      range_type: 'day',
      days: 7,
      cost_per_day: 10,
      minimum: 100,
      formula: 'days = max(1, ceil(604800 s ÷ 86400 s/day)) = 7; cost = max(100, 7 × 10 per day) = 100',
    });
    expect(dayCost('exchange/venue_a/raw_trades', 2 * DAY).breakdown.formula).toBe('days = max(1, ceil(172800 s ÷ 86400 s/day)) = 2; cost = 2 × 1000 per day = 2000');
  });

  it('a venue estimate carries the day breakdown through the estimate response', () => {
    const c = dayCost('exchange/venue_a/ohlcv', 3 * DAY);
    expect(buildEstimate('/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-04', c, 1000)).toEqual({
      query: '/v1/exchange/venue_a/ohlcv?token=BTC&since=2025-12-01&until=2025-12-04',
      cost: 300,
      quota_remaining: 1000,
      quota_remaining_after: 700,
      breakdown: { range_type: 'day', days: 3, cost_per_day: 100, minimum: 0, formula: expect.stringContaining('= 300') },
    });
  });
});

describe('roundHalfUp', () => {
  it('ignores binary floating-point noise', () => {
    // 0.145 × 100 is 14.5 in decimal but 14.499999999999998 in binary floating point.
    expect(Math.round(0.145 * 100)).toBe(14);
    expect(roundHalfUp(0.145 * 100)).toBe(15);
    expect(roundHalfUp(0.5)).toBe(1);
    expect(roundHalfUp(2.4999)).toBe(2);
  });
});
