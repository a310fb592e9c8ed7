/** The demo's lending pool events: real pool proxy addresses per network and market, reserves drawn from a token mix. */
import { amountColumns, constant, draw, LOG_KEY_VALUES, party, sharedDraw, tokenColumns, type DemoEvents, type DemoMarket, type DemoToken, type DemoValue, type ProtocolDemo } from '../demo.ts';
import type { LENDING_ABI } from './catalog.ts';

type LendingEvent = keyof typeof LENDING_ABI;

/** Markets per network, each with its share of the network's events. */
const MARKETS: Readonly<Record<string, readonly DemoMarket[]>> = {
  ETH: [
    { market: 'Core', contract: '0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2', share: 0.8 },
    { market: 'Prime', contract: '0x4e033931ad43597d96d6bcc25c280717730b58b1', share: 0.15 },
    { market: 'EtherFi', contract: '0x0aa97c284e98396202b6a04024f5e2c65026f3c0', share: 0.05 },
  ],
  ARB: [{ market: 'Core', contract: '0x794a61358d6845594f94dc1db02a252b5b4814ad', share: 1 }],
  POLYGON: [{ market: 'Core', contract: '0x794a61358d6845594f94dc1db02a252b5b4814ad', share: 1 }],
  BASE: [{ market: 'Core', contract: '0xa238dd80c259a72e81d7e4664a9801593f98d1c5', share: 1 }],
};

/** Events per day on Ethereum at scale 1; other networks see 40% of it. */
const RATES: Readonly<Record<LendingEvent, number>> = { deposit: 2000, withdraw: 1600, borrow: 1000, repay: 800, flashloan: 150, liquidation: 40 };
const EVENTS: readonly LendingEvent[] = ['deposit', 'withdraw', 'borrow', 'repay', 'flashloan', 'liquidation'];

const RESERVES: readonly DemoToken[] = [
  { symbol: 'USDC', weight: 0.4, scale: 2000 },
  { symbol: 'USDT', weight: 0.3, scale: 2000 },
  { symbol: 'WETH', weight: 0.2, scale: 1 },
  { symbol: 'WBTC', weight: 0.05, scale: 0.03 },
  { symbol: 'DAI', weight: 0.05, scale: 2000 },
];

const reserve = { ...tokenColumns(), ...amountColumns('amount') };

/** Each event's own columns. */
const COLUMNS: Readonly<Record<LendingEvent, Readonly<Record<string, DemoValue>>>> = {
  deposit: {
    user: party('user'),
    on_behalf_of: { kind: 'either', draw: sharedDraw('obo'), chance: 0.9, then: party('user'), otherwise: party('obo') },
    referral_code: { kind: 'either', draw: sharedDraw('ref'), chance: 0.95, then: constant(0), otherwise: constant(5) },
    ...reserve,
  },
  withdraw: { user: party('user'), recipient: party('user'), ...reserve },
  borrow: {
    user: party('user'),
    on_behalf_of: party('user'),
    interest_rate_mode: constant(2),
    // A variable rate between 2% and 10%, in ray (27 decimals) as the pool reports it.
    borrow_rate_raw: { kind: 'uniform', draw: sharedDraw('rate'), from: 0.02, span: 0.08, decimals: 27, part: 'raw' },
    borrow_rate: { kind: 'uniform', draw: sharedDraw('rate'), from: 0.02, span: 0.08, decimals: 27, part: 'units' },
    referral_code: constant(0),
    ...reserve,
  },
  repay: { user: party('user'), repayer: party('user'), use_a_tokens: { kind: 'chance', draw: sharedDraw('atok'), chance: 0.1 }, ...reserve },
  flashloan: {
    initiator: party('user', 300),
    target: party('target', 300),
    interest_rate_mode: constant(0),
    referral_code: constant(0),
    ...reserve,
    // The pool's 0.05% premium.
    ...amountColumns('premium', { times: 5, per: 10_000 }),
  },
  liquidation: {
    owner: party('user'),
    liquidator: party('liq', 200),
    receive_a_token: constant(false),
    ...tokenColumns('debt_'),
    ...tokenColumns('collateral_', true),
    ...amountColumns('debt_to_cover'),
    // The debt's worth in collateral with a 5% liquidation bonus.
    liquidated_collateral_raw: { kind: 'secondAmount', part: 'raw', times: 1.05 },
    liquidated_collateral: { kind: 'secondAmount', part: 'units', times: 1.05 },
  },
};

function events(network: string, markets: readonly DemoMarket[], event: LendingEvent): DemoEvents {
  return {
    event,
    network,
    seed: `lending:${event}:${network}`,
    perDay: RATES[event] * (network === 'ETH' ? 1 : 0.4),
    markets: { draw: draw('mkt'), list: markets },
    tokens: { draw: draw('tok'), mix: RESERVES, ...(event === 'liquidation' ? { second: sharedDraw('coll') } : {}) },
    amount: { scale: 'token', alpha: 1.2, decimals: 'token' },
    columns: { ...LOG_KEY_VALUES, market: { kind: 'market', field: 'name' }, pool_address: { kind: 'market', field: 'contract' }, ...COLUMNS[event] },
  };
}

export const lendingDemo: ProtocolDemo = {
  events: Object.entries(MARKETS).flatMap(([network, markets]) => EVENTS.map((event) => events(network, markets, event))),
};
