/**
 * The demo dataset: deterministic synthetic events for every served dataset,
 * at each network's real block cadence, with real token and pool contract
 * addresses. It is generated inside DuckDB (pure SQL over `range()`), so even
 * millions of rows load in seconds. Nothing here is real chain data.
 *
 * Shapes: amounts are Pareto-tailed, addresses are drawn Zipf-like from a
 * fixed pool so they repeat, ~6% of counterparties are labelled public
 * addresses, and the ETH price follows a per-minute random walk that the swap
 * prices and the venue candles share.
 */
import { blockSeconds } from '../catalog/networks.ts';
import type { Store, Tx } from '../store/createStore.ts';
import { addCoverage } from '../query/coverage.ts';

export interface DemoOptions {
  /** Multiplies every event rate. */
  readonly scale?: number;
  readonly days?: number;
  /** Window start, epoch milliseconds at 00:00 UTC. */
  readonly start?: number;
}

export const DEMO_START = Date.UTC(2025, 11, 1);

/** The first block of the demo window per network, near the real height on 2025-12-01. */
export const DEMO_START_BLOCKS: Readonly<Record<string, number>> = {
  ETH: 23_910_000, ARB: 405_000_000, OP: 144_500_000, BASE: 38_900_000, POLYGON: 79_600_000,
  BSC: 70_000_000, AVAX: 73_000_000,
};

/** A dataset's events per day on each network, at scale 1. */
type Rates = Readonly<Record<string, number>>;

export interface DemoContext {
  readonly tx: Tx;
  readonly scale: number;
  readonly days: number;
  readonly start: number;
}

// ---------------------------------------------------------------------------
// SQL helpers. Every literal spliced below is a constant of this module or a
// validated number; the demo never sees user text.

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

function blockSpan(ctx: DemoContext, network: string): { first: number; count: number; seconds: number } {
  const seconds = blockSeconds(network);
  const first = DEMO_START_BLOCKS[network];
  if (first === undefined) throw new Error(`demo: no start block for ${network}`);
  return { first, count: Math.floor((ctx.days * 86_400) / seconds), seconds };
}

/** Block time as the chain reports it: whole seconds. */
function blockTimeSql(ctx: DemoContext, network: string, blockExpr: string): string {
  const { first, seconds } = blockSpan(ctx, network);
  return `to_timestamp(${ctx.start / 1000} + floor((${blockExpr} - ${first}) * ${seconds}))::TIMESTAMP`;
}

async function writeBlocks(ctx: DemoContext, network: string): Promise<void> {
  const { first, count } = blockSpan(ctx, network);
  await ctx.tx.run(`DELETE FROM blocks WHERE network = '${network}'`);
  await ctx.tx.run(`INSERT INTO blocks
    SELECT '${network}', ${first} + i, ${blockTimeSql(ctx, network, `${first} + i`)},
           txh('${network}:b' || i), txh('${network}:b' || (i - 1))
    FROM range(${count}) r(i) ORDER BY i`);
}

/**
 * The skeleton of a synthetic event table: `n` events spread uniformly over
 * the window's blocks, with block_number, log_index, time, tx_hash and a
 * per-event seed `i`, ordered as the table is.
 */
function skeleton(ctx: DemoContext, network: string, tag: string, perDay: number): string {
  const { first, count } = blockSpan(ctx, network);
  const n = Math.max(1, Math.round(perDay * ctx.days * ctx.scale));
  return `(SELECT *, ${blockTimeSql(ctx, network, 'block_number')} AS time,
                 txh('${tag}:' || i) AS tx_hash,
                 (row_number() OVER (PARTITION BY block_number ORDER BY i) - 1)::INTEGER AS log_index
          FROM (SELECT i, ${first} + floor(u(i, '${tag}:blk') * ${count})::BIGINT AS block_number FROM range(${n}) r(i)))`;
}

/** An address for event i: a labelled public address ~6% of the time, else one from a repeating pool. */
function party(tag: string, role: string, poolSize = 20_000): string {
  return `coalesce(CASE WHEN u(i, '${tag}:${role}:l') < 0.06 THEN (SELECT address FROM demo_labelled
            WHERE idx = floor(u(i, '${tag}:${role}:li') * (SELECT count(*) FROM demo_labelled))::BIGINT) END,
          addr('${role === 'sender' || role === 'user' ? 'a' : 'b'}', zipf(u(i, '${tag}:${role}'), ${poolSize})))`;
}

async function finish(ctx: DemoContext, dataset: string, network: string): Promise<void> {
  const { first, count } = blockSpan(ctx, network);
  await ctx.tx.run(`DELETE FROM coverage WHERE dataset = '${dataset}' AND scope = '${network}'`);
  await addCoverage(ctx.tx, dataset, network, first, first + count - 1);
}

// ---------------------------------------------------------------------------

const ERC20_RATES: Rates = { ETH: 150_000, POLYGON: 60_000, ARB: 60_000, OP: 30_000, BASE: 60_000, BSC: 60_000, AVAX: 20_000 };
/** Share of transfers per token symbol; tokens missing from a network's registry are skipped. */
const ERC20_MIX: readonly [string, number, number][] = [
  // symbol, weight, Pareto scale in token units
  ['USDT', 0.4, 20], ['USDC', 0.35, 20], ['WETH', 0.15, 0.01], ['WBTC', 0.05, 0.0005], ['DAI', 0.05, 20],
];

async function erc20(ctx: DemoContext, network: string): Promise<void> {
  const tag = `erc20:${network}`;
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_mix AS
    WITH m(symbol, weight, m) AS (VALUES ${ERC20_MIX.map(([s, w, m]) => `('${s}', ${w}, ${m})`).join(', ')}),
         t AS (SELECT m.*, any_value(tk.address) AS address, any_value(tk.decimals) AS decimals
               FROM m JOIN tokens tk ON tk.symbol = m.symbol AND tk.network = '${network}' AND tk.address <> ''
               GROUP BY ALL)
    SELECT *, sum(weight) OVER (ORDER BY weight DESC, symbol) / sum(weight) OVER () AS cum FROM t`);
  await ctx.tx.run(`INSERT INTO evm_erc20_transfer
    SELECT '${network}', e.block_number, e.log_index, e.time, e.tx_hash, k.address, k.symbol, k.decimals,
           ${party(tag, 'sender')}, ${party(tag, 'receiver')}, raw::BIGNUM, raw::DOUBLE / pow(10, k.decimals)
    FROM (SELECT s.*, (SELECT symbol FROM demo_mix WHERE cum >= u(s.i, '${tag}:tok') ORDER BY cum LIMIT 1) AS sym
          FROM ${skeleton(ctx, network, tag, ERC20_RATES[network] ?? 20_000)} s) e
    JOIN demo_mix k ON k.symbol = e.sym,
    LATERAL (SELECT CAST(round(pareto(u(e.i, '${tag}:amt'), k.m, 1.1) * pow(10, least(k.decimals, 18))) AS HUGEINT) AS raw)
    ORDER BY e.block_number, e.log_index`);
  await finish(ctx, 'evm/erc20/transfer', network);
}

export async function generateDemo(store: Store, opts: DemoOptions = {}): Promise<void> {
  const scale = opts.scale ?? 1;
  const days = opts.days ?? 2;
  if (!(scale > 0) || !(days > 0) || days > 60) throw new Error('demo: scale must be > 0 and days in (0, 60]');
  await store.transaction(async (tx) => {
    const ctx: DemoContext = { tx, scale, days, start: opts.start ?? DEMO_START };
    for (const m of MACROS) await tx.run(m);
    await tx.run(`CREATE OR REPLACE TEMP TABLE demo_labelled AS
      SELECT (row_number() OVER (ORDER BY address) - 1)::BIGINT AS idx, address FROM labels
      WHERE address LIKE '0x%' AND (network IS NULL OR network = '')`);
    for (const network of Object.keys(DEMO_START_BLOCKS)) await writeBlocks(ctx, network);
    for (const network of Object.keys(ERC20_RATES)) await erc20(ctx, network);
  });
}
