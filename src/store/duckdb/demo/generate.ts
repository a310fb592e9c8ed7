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
 * Each EVM protocol's generator is a statement over that protocol's tables,
 * which is why this module spells their table names and dataset ids.
 */
import type { DemoPlan } from '../../demoPlan.ts';
import type { Store } from '../../types.ts';
import { requireDuckDb } from '../types.ts';
import { blockSpan, blockTimeSql, finish, skeleton, type DemoContext } from './context.ts';
import { btcDemo } from './btc.ts';
import { tronDemo } from './tron.ts';
import { venueDemo } from './venues.ts';

/** A dataset's events per day on each network, at scale 1. */
type Rates = Readonly<Record<string, number>>;

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

/** An address for event i: a labelled public address ~6% of the time, else one from a repeating pool. */
function party(tag: string, role: string, poolSize = 20_000): string {
  return `coalesce(CASE WHEN u(i, '${tag}:${role}:l') < 0.06 THEN (SELECT address FROM demo_labelled
            WHERE idx = floor(u(i, '${tag}:${role}:li') * (SELECT count(*) FROM demo_labelled))::BIGINT) END,
          addr('${role === 'sender' || role === 'user' ? 'a' : 'b'}', zipf(u(i, '${tag}:${role}'), ${poolSize})))`;
}

// ---------------------------------------------------------------------------

const ERC20_RATES: Rates = { ETH: 150_000, POLYGON: 60_000, ARB: 60_000, OP: 30_000, BASE: 60_000, BSC: 60_000, AVAX: 20_000 };
/** Share of transfers per token symbol; tokens missing from a network's registry are skipped. */
const ERC20_MIX: readonly [string, number, number][] = [
  // symbol, weight, Pareto scale in token units
  ['USDT', 0.4, 20],
  ['USDC', 0.35, 20],
  ['WETH', 0.15, 0.01],
  ['WBTC', 0.05, 0.0005],
  ['DAI', 0.05, 20],
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

const NATIVE_RATES: Rates = { ETH: 40_000, ARB: 30_000, BASE: 30_000 };

async function native(ctx: DemoContext, network: string): Promise<void> {
  const tag = `native:${network}`;
  // About one transfer in five is an internal call inside a contract transaction.
  await ctx.tx.run(`INSERT INTO evm_native_transfer
    SELECT '${network}', block_number, (log_index - internal)::INTEGER, internal::INTEGER, time, tx_hash, 'ETH',
           ${party(tag, 'sender')}, ${party(tag, 'receiver')}, raw::BIGNUM, raw::DOUBLE / 1e18
    FROM (SELECT s.*, CASE WHEN s.log_index > 0 AND u(s.i, '${tag}:int') < 0.2 THEN 1 ELSE 0 END AS internal,
                 CAST(round(pareto(u(s.i, '${tag}:amt'), 0.02, 1.05) * 1e18) AS HUGEINT) AS raw
          FROM ${skeleton(ctx, network, tag, NATIVE_RATES[network]!)} s)
    ORDER BY block_number, log_index`);
  await finish(ctx, 'evm/native/transfer', network);
}

/** Lending pools of the demo: real pool proxy addresses per network and market. */
const LENDING_POOLS: readonly [string, string, string, number][] = [
  // network, market, pool, share of the network's events
  ['ETH', 'Core', '0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2', 0.8],
  ['ETH', 'Prime', '0x4e033931ad43597d96d6bcc25c280717730b58b1', 0.15],
  ['ETH', 'EtherFi', '0x0aa97c284e98396202b6a04024f5e2c65026f3c0', 0.05],
  ['ARB', 'Core', '0x794a61358d6845594f94dc1db02a252b5b4814ad', 1],
  ['POLYGON', 'Core', '0x794a61358d6845594f94dc1db02a252b5b4814ad', 1],
  ['BASE', 'Core', '0xa238dd80c259a72e81d7e4664a9801593f98d1c5', 1],
];
const LENDING_RATES: Readonly<Record<string, number>> = { deposit: 2000, withdraw: 1600, borrow: 1000, repay: 800, flashloan: 150, liquidation: 40 };
const LENDING_TOKENS: readonly [string, number, number][] = [
  ['USDC', 0.4, 2000],
  ['USDT', 0.3, 2000],
  ['WETH', 0.2, 1],
  ['WBTC', 0.05, 0.03],
  ['DAI', 0.05, 2000],
];

async function lendingSetup(ctx: DemoContext): Promise<void> {
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_lending_pool AS
    SELECT *, sum(share) OVER (PARTITION BY network ORDER BY share DESC, market) AS cum
    FROM (VALUES ${LENDING_POOLS.map(([n, m, p, sh]) => `('${n}', '${m}', '${p}', ${sh})`).join(', ')}) v(network, market, pool, share)`);
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_lending_token AS
    SELECT tk.network, m.symbol, any_value(tk.address) AS address, any_value(tk.decimals) AS decimals, any_value(m.m) AS m,
           sum(any_value(m.w)) OVER (PARTITION BY tk.network ORDER BY any_value(m.w) DESC, m.symbol) / sum(any_value(m.w)) OVER (PARTITION BY tk.network) AS cum
    FROM (VALUES ${LENDING_TOKENS.map(([s, w, m]) => `('${s}', ${w}, ${m})`).join(', ')}) m(symbol, w, m)
    JOIN tokens tk ON tk.symbol = m.symbol AND tk.address <> ''
    GROUP BY tk.network, m.symbol`);
}

/** Lending skeleton: market, pool and reserve token for each event. */
function lendingEvents(ctx: DemoContext, network: string, event: string, tokenRole = 'tok'): string {
  const tag = `lending:${event}:${network}`;
  return `(SELECT s.*, p.market, p.pool, k.symbol AS token, k.address AS token_address, k.decimals AS token_decimals,
                  CAST(round(pareto(u(s.i, '${tag}:amt'), k.m, 1.2) * pow(10, k.decimals)) AS HUGEINT) AS raw
           FROM ${skeleton(ctx, network, tag, (LENDING_RATES[event] ?? 100) * (network === 'ETH' ? 1 : 0.4))} s
           JOIN demo_lending_pool p ON p.network = '${network}'
             AND p.cum = (SELECT min(cum) FROM demo_lending_pool WHERE network = '${network}' AND cum >= u(s.i, '${tag}:mkt'))
           JOIN demo_lending_token k ON k.network = '${network}'
             AND k.cum = (SELECT min(cum) FROM demo_lending_token WHERE network = '${network}' AND cum >= u(s.i, '${tag}:${tokenRole}')))`;
}

async function lending(ctx: DemoContext, network: string): Promise<void> {
  const key = `'${network}', block_number, log_index, time, tx_hash, market, pool`;
  const reserve = `token_address, token, token_decimals, raw::BIGNUM, raw::DOUBLE / pow(10, token_decimals)`;
  const t = (event: string) => `lending:${event}:${network}`;
  const statements: [string, string][] = [
    [
      'deposit',
      `INSERT INTO evm_lending_v3_deposit SELECT ${key}, ${party(t('deposit'), 'user')},
       CASE WHEN u(i, 'obo') < 0.9 THEN ${party(t('deposit'), 'user')} ELSE ${party(t('deposit'), 'obo')} END,
       CASE WHEN u(i, 'ref') < 0.95 THEN 0 ELSE 5 END, ${reserve} FROM ${lendingEvents(ctx, network, 'deposit')} ORDER BY block_number, log_index`,
    ],
    [
      'withdraw',
      `INSERT INTO evm_lending_v3_withdraw SELECT ${key}, ${party(t('withdraw'), 'user')}, ${party(t('withdraw'), 'user')},
       ${reserve} FROM ${lendingEvents(ctx, network, 'withdraw')} ORDER BY block_number, log_index`,
    ],
    [
      'borrow',
      `INSERT INTO evm_lending_v3_borrow SELECT ${key}, ${party(t('borrow'), 'user')}, ${party(t('borrow'), 'user')}, 2,
       CAST(round((0.02 + 0.08 * u(i, 'rate')) * 1e27) AS HUGEINT)::BIGNUM, 0.02 + 0.08 * u(i, 'rate'), 0,
       ${reserve} FROM ${lendingEvents(ctx, network, 'borrow')} ORDER BY block_number, log_index`,
    ],
    [
      'repay',
      `INSERT INTO evm_lending_v3_repay SELECT ${key}, ${party(t('repay'), 'user')}, ${party(t('repay'), 'user')}, u(i, 'atok') < 0.1,
       ${reserve} FROM ${lendingEvents(ctx, network, 'repay')} ORDER BY block_number, log_index`,
    ],
    [
      'flashloan',
      `INSERT INTO evm_lending_v3_flashloan SELECT ${key}, ${party(t('flashloan'), 'user', 300)}, ${party(t('flashloan'), 'target', 300)}, 0, 0,
       ${reserve}, (raw * 5 // 10000)::BIGNUM, (raw * 5 // 10000)::DOUBLE / pow(10, token_decimals)
       FROM ${lendingEvents(ctx, network, 'flashloan')} ORDER BY block_number, log_index`,
    ],
    [
      'liquidation',
      `INSERT INTO evm_lending_v3_liquidation SELECT ${key}, ${party(t('liquidation'), 'user')}, ${party(t('liquidation'), 'liq', 200)}, false,
       token_address, token, token_decimals, c.address, c.symbol, c.decimals,
       raw::BIGNUM, raw::DOUBLE / pow(10, token_decimals),
       CAST(round(raw::DOUBLE / pow(10, token_decimals) / c.m * k_m * 1.05 * pow(10, c.decimals)) AS HUGEINT)::BIGNUM,
       round(raw::DOUBLE / pow(10, token_decimals) / c.m * k_m * 1.05 * pow(10, c.decimals)) / pow(10, c.decimals)
       FROM (SELECT e.*, (SELECT m FROM demo_lending_token WHERE network = '${network}' AND symbol = e.token) AS k_m FROM ${lendingEvents(ctx, network, 'liquidation')} e) e
       JOIN demo_lending_token c ON c.network = '${network}'
         AND c.cum = (SELECT min(cum) FROM demo_lending_token WHERE network = '${network}' AND cum >= u(e.i, 'coll'))
       ORDER BY block_number, log_index`,
    ],
  ];
  for (const [event, sql] of statements) {
    await ctx.tx.run(sql);
    await finish(ctx, `evm/lending_v3/${event}`, network);
  }
}

/** The busiest real pools: WETH/USDC at 0.05% and 0.30%. */
const DEX_POOLS: readonly [string, number, string, number][] = [
  // network, fee, pool address, swaps per day
  ['ETH', 500, '0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640', 12_000],
  ['ETH', 3000, '0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8', 3_000],
  ['ARB', 500, '0xc6962004f452be9203591991d15f6b388e09e8d0', 20_000],
  ['ARB', 3000, '0xc473e2aee3441bf9240be85eb122abb059a3b57c', 2_000],
  ['BASE', 500, '0xd0b53d9277642d899df5c87a3966a349a798f224', 20_000],
  ['BASE', 3000, '0x6c561b446416e1a00e8e93e221854d6ea4171372', 2_000],
];

async function dexSetup(ctx: DemoContext): Promise<void> {
  // token0 is the lower address, as in the factory.
  await ctx.tx.run(`DELETE FROM pools WHERE pool_address IN (${DEX_POOLS.map((p) => `'${p[2]}'`).join(', ')})`);
  await ctx.tx.run(`INSERT INTO pools
    SELECT v.network, v.pool, v.fee,
           CASE WHEN w.address < c.address THEN w.address ELSE c.address END, CASE WHEN w.address < c.address THEN 'WETH' ELSE 'USDC' END,
           CASE WHEN w.address < c.address THEN w.decimals ELSE c.decimals END,
           CASE WHEN w.address < c.address THEN c.address ELSE w.address END, CASE WHEN w.address < c.address THEN 'USDC' ELSE 'WETH' END,
           CASE WHEN w.address < c.address THEN c.decimals ELSE w.decimals END, NULL
    FROM (VALUES ${DEX_POOLS.map(([n, f, p]) => `('${n}', ${f}, '${p}')`).join(', ')}) v(network, fee, pool)
    JOIN tokens w ON w.network = v.network AND w.symbol = 'WETH' AND w.address <> ''
    JOIN tokens c ON c.network = v.network AND c.symbol = 'USDC' AND c.address <> ''`);
}

function dexEvents(ctx: DemoContext, network: string, fee: number, event: string, perDay: number): string {
  const tag = `dex:${event}:${network}:${fee}`;
  return `(SELECT s.*, p.pool_address, p.token0_address, p.token0, p.token0_decimals, p.token1_address, p.token1, p.token1_decimals,
                  pp.price AS eth_usd,
                  pareto(u(s.i, '${tag}:amt'), ${event === 'swap' ? 0.05 : 2}, 1.15) AS weth,
                  u(s.i, '${tag}:dir') < 0.5 AS sells_weth
           FROM ${skeleton(ctx, network, tag, perDay)} s
           JOIN pools p ON p.network = '${network}' AND p.fee = ${fee} AND p.pool_address IN (${DEX_POOLS.map((x) => `'${x[2]}'`).join(', ')})
           JOIN demo_price_path pp ON pp.symbol = 'ETH' AND pp.minute = date_trunc('minute', s.time))`;
}

async function dex(ctx: DemoContext, network: string): Promise<void> {
  const key = `'${network}', block_number, log_index, time, tx_hash, pool_address, token0_address, token0, token0_decimals, token1_address, token1, token1_decimals`;
  // Signed pool-side amounts: positive entered the pool.
  const amounts = (sign: string, usdcSign = sign) => `
    CASE WHEN token0 = 'WETH' THEN ${sign}weth ELSE ${usdcSign}usdc END AS a0,
    CASE WHEN token0 = 'WETH' THEN ${usdcSign}usdc ELSE ${sign}weth END AS a1`;
  const rawCols = `CAST(round(a0 * pow(10, token0_decimals)) AS HUGEINT)::BIGNUM, round(a0 * pow(10, token0_decimals)) / pow(10, token0_decimals),
                   CAST(round(a1 * pow(10, token1_decimals)) AS HUGEINT)::BIGNUM, round(a1 * pow(10, token1_decimals)) / pow(10, token1_decimals)`;
  const ticks = `(-887220 + 60 * floor(u(i, 'tl') * 100))::INTEGER, (60 * floor(u(i, 'tu') * 100))::INTEGER`;
  for (const [, fee, , swapsPerDay] of DEX_POOLS.filter((p) => p[0] === network)) {
    const t = (e: string) => `dex:${e}:${network}:${fee}`;
    const side = (e: string, per: number) => `(SELECT *, weth * eth_usd AS usdc FROM ${dexEvents(ctx, network, fee, e, per)})`;
    await ctx.tx.run(`INSERT INTO evm_dex_v3_swap
      SELECT ${key}, ${rawCols}, ${party(t('swap'), 'router', 50)}, ${party(t('swap'), 'recipient')}, ${party(t('swap'), 'sender')},
             -- sqrtPriceX96 = sqrt(token1 per token0 in base units) · 2^96
             CAST(sqrt(px_raw) * pow(2, 96) AS HUGEINT)::BIGNUM, px,
             CAST(liq AS HUGEINT)::BIGNUM, liq, floor(ln(px_raw) / ln(1.0001))::INTEGER
      FROM (SELECT *, CASE WHEN token0 = 'WETH' THEN eth_usd ELSE 1 / eth_usd END AS px,
                   CASE WHEN token0 = 'WETH' THEN eth_usd ELSE 1 / eth_usd END * pow(10, token1_decimals::INTEGER - token0_decimals::INTEGER) AS px_raw,
                   2e18 * (1 + 0.3 * sin(block_number / 5000.0)) * (0.9 + 0.2 * u(i, 'liq')) AS liq,
                   ${amounts('CASE WHEN sells_weth THEN 1 ELSE -1 END * ', 'CASE WHEN sells_weth THEN -1 ELSE 1 END * ')}
            FROM (SELECT *, weth * eth_usd * (1 - ${fee} / 1e6) AS usdc FROM ${dexEvents(ctx, network, fee, 'swap', swapsPerDay)}))
      ORDER BY block_number, log_index`);
    await ctx.tx.run(`INSERT INTO evm_dex_v3_deposit SELECT ${key}, ${rawCols}, ${party(t('deposit'), 'router', 20)}, ${party(t('deposit'), 'user')}, ${ticks},
        CAST(weth * 1e15 AS HUGEINT)::BIGNUM FROM (SELECT *, ${amounts('')} FROM ${side('deposit', swapsPerDay / 50)}) ORDER BY block_number, log_index`);
    await ctx.tx.run(`INSERT INTO evm_dex_v3_withdraw SELECT ${key}, ${rawCols}, ${party(t('withdraw'), 'user')}, ${ticks},
        CAST(weth * 1e15 AS HUGEINT)::BIGNUM FROM (SELECT *, ${amounts('')} FROM ${side('withdraw', swapsPerDay / 60)}) ORDER BY block_number, log_index`);
    await ctx.tx.run(`INSERT INTO evm_dex_v3_collect SELECT ${key}, ${rawCols}, ${party(t('collect'), 'user')}, ${party(t('collect'), 'user')}, ${ticks}
        FROM (SELECT *, ${amounts('')} FROM ${side('collect', swapsPerDay / 60)}) ORDER BY block_number, log_index`);
  }
  for (const e of ['swap', 'deposit', 'withdraw', 'collect']) await finish(ctx, `evm/dex_v3/${e}`, network);
}

const LIDO = { steth: '0xae7ab96520de3a18e5e111b5eaab095312d7fe84', queue: '0x889edc2edab5f40e902b864ad4d7ade8e412f9b1' };
const L2_BRIDGES: Readonly<Record<string, string>> = {
  ARB: '0x07d4692291b9e30e326fd31706f686f83f331b82',
  OP: '0x8e01013243a96601a86eb3153f0d9fa4fbfb6957',
  BASE: '0xac9d11cd4d7ef6e54f14643a393f68ca014287ab',
};

async function stakingL1(ctx: DemoContext): Promise<void> {
  const n = 'ETH';
  const key = `'${n}', block_number, log_index, time, tx_hash`;
  const amt = (tag: string, m: number) => `CAST(round(pareto(u(i, '${tag}:amt'), ${m}, 1.1) * 1e18) AS HUGEINT)`;
  await ctx.tx.run(`INSERT INTO evm_staking_deposit SELECT ${key}, '${LIDO.steth}', ${party('stk:dep', 'sender')},
      CASE WHEN u(i, 'ref') < 0.9 THEN '0x0000000000000000000000000000000000000000' ELSE ${party('stk:dep', 'ref', 30)} END,
      raw::BIGNUM, raw::DOUBLE / 1e18, 'STETH'
    FROM (SELECT *, ${amt('stk:dep', 0.5)} AS raw FROM ${skeleton(ctx, n, 'stk:dep', 1500)}) ORDER BY block_number, log_index`);
  await ctx.tx.run(`INSERT INTO evm_staking_withdrawal_request SELECT ${key}, '${LIDO.queue}', 95000 + row_number() OVER (ORDER BY block_number, log_index),
      ${party('stk:wr', 'user')}, ${party('stk:wr', 'user')}, raw::BIGNUM, raw::DOUBLE / 1e18, (raw * 85 // 100)::BIGNUM, (raw * 85 // 100)::DOUBLE / 1e18, 'STETH'
    FROM (SELECT *, ${amt('stk:wr', 1)} AS raw FROM ${skeleton(ctx, n, 'stk:wr', 700)}) ORDER BY block_number, log_index`);
  await ctx.tx.run(`INSERT INTO evm_staking_withdrawal_claimed SELECT ${key}, '${LIDO.queue}', 90000 + row_number() OVER (ORDER BY block_number, log_index),
      ${party('stk:wc', 'user')}, ${party('stk:wc', 'user')}, raw::BIGNUM, raw::DOUBLE / 1e18, 'ETH'
    FROM (SELECT *, ${amt('stk:wc', 1)} AS raw FROM ${skeleton(ctx, n, 'stk:wc', 600)}) ORDER BY block_number, log_index`);
  for (const e of ['deposit', 'withdrawal_request', 'withdrawal_claimed']) await finish(ctx, `evm/staking/${e}`, n);
}

async function stakingL2(ctx: DemoContext, network: string): Promise<void> {
  const bridge = L2_BRIDGES[network]!;
  for (const [event, perDay] of [
    ['l2_deposit', 300],
    ['l2_withdrawal_request', 200],
  ] as const) {
    const tag = `stk:${event}:${network}`;
    await ctx.tx.run(`INSERT INTO evm_staking_${event}
      SELECT '${network}', block_number, log_index, time, tx_hash, '${bridge}',
             '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0', coalesce((SELECT address FROM tokens WHERE network = '${network}' AND symbol = 'WSTETH' AND address <> '' LIMIT 1), ''),
             ${party(tag, 'sender')}, ${party(tag, 'sender')}, raw::BIGNUM, raw::DOUBLE / 1e18, 'WSTETH'
      FROM (SELECT *, CAST(round(pareto(u(i, '${tag}:amt'), 0.3, 1.1) * 1e18) AS HUGEINT) AS raw FROM ${skeleton(ctx, network, tag, perDay)})
      ORDER BY block_number, log_index`);
    await finish(ctx, `evm/staking/${event}`, network);
  }
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
    if (wanted('evm/erc20')) for (const network of Object.keys(ERC20_RATES)) await erc20(ctx, network);
    if (wanted('evm/native')) for (const network of Object.keys(NATIVE_RATES)) await native(ctx, network);
    if (wanted('evm/lending_v3')) {
      await lendingSetup(ctx);
      for (const network of new Set(LENDING_POOLS.map((p) => p[0]))) await lending(ctx, network);
    }
    if (wanted('evm/dex_v3')) {
      await dexSetup(ctx);
      for (const network of new Set(DEX_POOLS.map((p) => p[0]))) await dex(ctx, network);
    }
    if (wanted('evm/staking')) {
      await stakingL1(ctx);
      for (const network of Object.keys(L2_BRIDGES)) await stakingL2(ctx, network);
    }
    if (wanted('tron')) await tronDemo(ctx);
    if (wanted('btc')) await btcDemo(ctx, plan.btc);
    if (wanted('exchange')) await venueDemo(ctx);
  });
}
