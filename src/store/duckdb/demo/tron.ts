/**
 * Tron demo: TRC-20 transfers (USDT dominating by count and by value) and
 * TRX transfers, at Tron's 3-second block cadence, between base58 addresses
 * drawn Zipf-like from a fixed pool, ~6% of them labelled public addresses.
 */
import { createHash } from 'node:crypto';
import { tronHexToBase58 } from '../../../utils/tronAddress.ts';
import { finish, skeleton, type DemoContext } from './context.ts';

const NETWORK = 'TRON';
const POOL = 20_000;
const TRC20_PER_DAY = 150_000;
const TRX_PER_DAY = 60_000;

/** symbol, share of transfers, Pareto scale in token units. */
const TRC20_MIX: readonly [string, number, number][] = [
  ['USDT', 0.8, 300],
  ['JST', 0.05, 2_000],
  ['BTT', 0.04, 1_000_000],
  ['USDC', 0.03, 200],
  ['USDD', 0.03, 100],
  ['SUN', 0.03, 5_000],
  ['WTRX', 0.02, 500],
];

async function addressPool(ctx: DemoContext): Promise<void> {
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_tron_addr (idx BIGINT, address VARCHAR)`);
  const rows: [number, string][] = [];
  for (let i = 0; i < POOL; i++) rows.push([i, tronHexToBase58(createHash('sha256').update(`tron-demo:${i}`).digest('hex').slice(0, 40))]);
  await ctx.tx.append('demo_tron_addr', rows);
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_tron_labelled AS
    SELECT (row_number() OVER (ORDER BY address) - 1)::BIGINT AS idx, address FROM labels WHERE network = '${NETWORK}'`);
}

/** Sender and receiver of event i: a labelled address ~6% of the time, else one from the pool. */
function parties(tag: string): string {
  const pick = (role: string) => `CASE WHEN u(e.i, '${tag}:${role}:l') < 0.06 AND (SELECT count(*) FROM demo_tron_labelled) > 0
      THEN (SELECT address FROM demo_tron_labelled WHERE idx = floor(u(e.i, '${tag}:${role}:li') * (SELECT count(*) FROM demo_tron_labelled))::BIGINT)
      ELSE ${role}_pool.address END`;
  return `${pick('sender')} AS sender, ${pick('receiver')} AS receiver`;
}

function poolJoins(tag: string): string {
  return `JOIN demo_tron_addr sender_pool ON sender_pool.idx = zipf(u(e.i, '${tag}:sender'), ${POOL})
          JOIN demo_tron_addr receiver_pool ON receiver_pool.idx = zipf(u(e.i, '${tag}:receiver'), ${POOL})`;
}

async function trc20(ctx: DemoContext): Promise<void> {
  const tag = 'trc20';
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_trc20_mix AS
    WITH m(symbol, weight, m) AS (VALUES ${TRC20_MIX.map(([s, w, m]) => `('${s}', ${w}, ${m})`).join(', ')}),
         t AS (SELECT m.*, any_value(tk.address) AS address, any_value(tk.decimals) AS decimals
               FROM m JOIN tokens tk ON tk.symbol = m.symbol AND tk.network = '${NETWORK}' AND tk.address <> '' GROUP BY ALL)
    SELECT *, sum(weight) OVER (ORDER BY weight DESC, symbol) / sum(weight) OVER () AS cum FROM t`);
  await ctx.tx.run(`INSERT INTO tron_trc20_transfer
    SELECT '${NETWORK}', e.block_number, e.log_index, e.time, substr(e.tx_hash, 3), k.address, k.symbol, k.decimals,
           ${parties(tag)}, raw::BIGNUM, raw::DOUBLE / pow(10, k.decimals)
    FROM (SELECT s.*, (SELECT symbol FROM demo_trc20_mix WHERE cum >= u(s.i, '${tag}:tok') ORDER BY cum LIMIT 1) AS sym
          FROM ${skeleton(ctx, NETWORK, tag, TRC20_PER_DAY)} s) e
    JOIN demo_trc20_mix k ON k.symbol = e.sym
    ${poolJoins(tag)},
    LATERAL (SELECT CAST(round(pareto(u(e.i, '${tag}:amt'), k.m, 1.15) * pow(10, k.decimals)) AS HUGEINT) AS raw)
    ORDER BY e.block_number, e.log_index`);
  await finish(ctx, 'tron/trc20/transfer', NETWORK);
}

async function trx(ctx: DemoContext): Promise<void> {
  const tag = 'trx';
  await ctx.tx.run(`INSERT INTO tron_native_transfer
    SELECT '${NETWORK}', e.block_number, e.log_index, e.time, substr(e.tx_hash, 3), 'TRX',
           ${parties(tag)}, raw, raw::DOUBLE / 1e6
    FROM ${skeleton(ctx, NETWORK, tag, TRX_PER_DAY)} e
    ${poolJoins(tag)},
    LATERAL (SELECT CAST(greatest(1, round(pareto(u(e.i, '${tag}:amt'), 50, 1.1) * 1e6)) AS BIGINT) AS raw)
    ORDER BY e.block_number, e.log_index`);
  await finish(ctx, 'tron/native/transfer', NETWORK);
}

export async function tronDemo(ctx: DemoContext): Promise<void> {
  await addressPool(ctx);
  await trc20(ctx);
  await trx(ctx);
}
