/**
 * The demo dataset in DuckDB SQL: deterministic synthetic events for every
 * served dataset, at each network's real block cadence, with real token and
 * pool contract addresses. It is generated inside DuckDB (pure SQL over
 * `range()`), so even millions of rows load in seconds; a ClickHouse store
 * gets the demo by copying a DuckDB store built with it. Nothing here is real
 * chain data.
 *
 * Shapes: amounts are Pareto-tailed, addresses are drawn Zipf-like from a
 * fixed pool so they repeat, ~6% of counterparties are labelled public
 * addresses, and the ETH price follows a per-minute random walk that the swap
 * prices and the venue candles share.
 *
 * EVM protocols describe their own rows (src/protocols/<name>/demo.ts) and
 * protocolRows.ts renders each description; this module knows no protocol.
 */
import { protocolRegistry } from '../../../protocols/index.ts';
import type { DemoPlan } from '../../demoPlan.ts';
import type { Store } from '../../types.ts';
import { requireDuckDb } from '../types.ts';
import { blockSpan, blockTimeSql, type DemoContext } from './context.ts';
import { writeProtocolDemo } from './protocolRows.ts';
import { btcDemo } from './btc.ts';
import { tronDemo } from './tron.ts';
import { venueDemo } from './venues.ts';

// ---------------------------------------------------------------------------
// SQL helpers. Every literal spliced below is a constant of this module or of
// the demo's plan (src/demo/), or a validated number; the demo never sees
// user text.

const MACROS = [
  // Uniform [0,1) from a hash of the arguments: deterministic across runs.
  // DuckDB combines multi-argument hashes cheaply, so hash(i, 'x') and
  // hash(i, 'y') are correlated; hashing the result again decorrelates them.
  `CREATE OR REPLACE TEMP MACRO h(a, b) AS hash(hash(a, b))`,
  `CREATE OR REPLACE TEMP MACRO u(a, b) AS (h(a, b) / 18446744073709551616.0)`,
  `CREATE OR REPLACE TEMP MACRO hex16(a, b) AS printf('%016x', h(a, b))`,
  `CREATE OR REPLACE TEMP MACRO txh(a) AS ('0x' || hex16(a, 1) || hex16(a, 2) || hex16(a, 3) || hex16(a, 4))`,
  // 20-byte address number k of pool `p`.
  `CREATE OR REPLACE TEMP MACRO addr(p, k) AS ('0x' || hex16(p, k) || hex16(k, p) || substr(hex16(p || 'x', k), 1, 8))`,
  // Zipf-like pick in a pool of n addresses: low indices are far more common.
  `CREATE OR REPLACE TEMP MACRO zipf(x, n) AS floor(pow(x, 3) * n)::BIGINT`,
  // Pareto(alpha) with scale m, capped so sums stay plausible.
  `CREATE OR REPLACE TEMP MACRO pareto(x, m, alpha) AS least(m / pow(greatest(x, 1e-9), 1.0 / alpha), m * 1e6)`,
];

export const epochSql = (ms: number) => `to_timestamp(${ms / 1000})::TIMESTAMP`;

async function writeBlocks(ctx: DemoContext, network: string): Promise<void> {
  const { first, count } = blockSpan(ctx, network);
  await ctx.tx.run(`DELETE FROM blocks WHERE network = '${network}'`);
  // One block before the window is included (it holds no events), so that a
  // time range starting exactly at the window start is known to be complete.
  await ctx.tx.run(`INSERT INTO blocks
    SELECT '${network}', ${first} + i, ${blockTimeSql(ctx, network, `${first} + i`)},
           txh('${network}:b' || i), txh('${network}:b' || (i - 1))
    FROM range(-1, ${count}) r(i) ORDER BY i`);
}

/**
 * Per-minute USD price paths shared by swaps and venue data, so that values
 * derived from one agree with the other: a geometric random walk per token.
 */
const PRICE_PATHS: readonly [string, number, number][] = [
  // symbol, start price, per-minute volatility
  ['ETH', 3000, 0.0012],
  ['BTC', 90000, 0.0009],
  ['SOL', 140, 0.0016],
];

async function pricePaths(ctx: DemoContext): Promise<void> {
  const minutes = Math.ceil(ctx.days * 1440) + 1;
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_price_path AS
    SELECT p.symbol, ${epochSql(ctx.start)} + to_minutes(m) AS minute,
           p.start * exp(sum(p.vol * (u(m, p.symbol || ':walk') - 0.5) * sqrt(12)) OVER (PARTITION BY p.symbol ORDER BY m)) AS price
    FROM (VALUES ${PRICE_PATHS.map(([s, p, v]) => `('${s}', ${p}, ${v})`).join(', ')}) p(symbol, start, vol), range(${minutes}) r(m)`);
}

/** Writes the demo into a DuckDB store, in one transaction; writeDemoStore has checked the plan's numbers. */
export async function generateDuckDbDemo(store: Store, plan: DemoPlan): Promise<void> {
  await requireDuckDb(store, 'the demo generator').transaction(async (tx) => {
    const ctx: DemoContext = { tx, scale: plan.scale, days: plan.days, start: plan.start, startBlocks: plan.startBlocks };
    for (const m of MACROS) await tx.run(m);
    await tx.run(`CREATE OR REPLACE TEMP TABLE demo_labelled AS
      SELECT (row_number() OVER (ORDER BY address) - 1)::BIGINT AS idx, address FROM labels
      WHERE address LIKE '0x%' AND (network IS NULL OR network = '')`);
    for (const network of Object.keys(plan.startBlocks)) await writeBlocks(ctx, network);
    const wanted = (prefix: string) => !plan.only || plan.only.some((o) => o.startsWith(prefix) || prefix.startsWith(o));
    await pricePaths(ctx);
    // Each EVM protocol's rows come from the description in its folder, in registry order.
    for (const protocol of protocolRegistry.protocols) if (protocol.demo && protocol.endpoints.some((e) => wanted(e.id))) await writeProtocolDemo(ctx, protocol);
    if (wanted('tron')) await tronDemo(ctx);
    if (wanted('btc')) await btcDemo(ctx, plan.btc);
    if (wanted('exchange')) await venueDemo(ctx);
  });
}
