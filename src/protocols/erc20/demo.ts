/** The demo's ERC-20 transfers: a mix of stablecoins and wrapped majors on each network, Pareto-tailed amounts. */
import { amountColumns, draw, LOG_KEY_VALUES, party, tokenColumns, type DemoToken, type ProtocolDemo } from '../demo.ts';

/** Transfers per day on each network, at scale 1. */
const RATES: Readonly<Record<string, number>> = { ETH: 150_000, POLYGON: 60_000, ARB: 60_000, OP: 30_000, BASE: 60_000, BSC: 60_000, AVAX: 20_000 };

/** Share of transfers per token symbol, and the Pareto scale of amounts in token units; tokens missing from a network's registry are skipped. */
const MIX: readonly DemoToken[] = [
  { symbol: 'USDT', weight: 0.4, scale: 20 },
  { symbol: 'USDC', weight: 0.35, scale: 20 },
  { symbol: 'WETH', weight: 0.15, scale: 0.01 },
  { symbol: 'WBTC', weight: 0.05, scale: 0.0005 },
  { symbol: 'DAI', weight: 0.05, scale: 20 },
];

export const erc20Demo: ProtocolDemo = {
  events: Object.entries(RATES).map(([network, perDay]) => ({
    event: 'transfer',
    network,
    seed: `erc20:${network}`,
    perDay,
    tokens: { draw: draw('tok'), mix: MIX },
    amount: { scale: 'token', alpha: 1.1, decimals: 'token' },
    columns: { ...LOG_KEY_VALUES, ...tokenColumns(), sender: party('sender'), receiver: party('receiver'), ...amountColumns('amount') },
  })),
};
