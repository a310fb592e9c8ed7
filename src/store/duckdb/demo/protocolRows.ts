/**
 * Renders a protocol's demo description (src/protocols/demo.ts) as DuckDB
 * SQL: per dataset and network, one `INSERT INTO <table> (<columns>) SELECT …`
 * over the events' skeleton, each column by name. Every literal spliced in is
 * a constant of a protocol's description, a number, or a catalog name; the
 * demo never sees user text.
 */
import type { ChainEndpoint } from '../../../catalog/types.ts';
import type { AmountPart, DemoEvents, DemoPool, DemoValue, Draw, TokenField } from '../../../protocols/demo.ts';
import type { EvmProtocol } from '../../../protocols/index.ts';
import { finish, skeleton, type DemoContext } from './context.ts';

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Uniform [0,1) of event `i` for a draw of events seeded `seed`. */
const u = (i: string, seed: string, d: Draw) => `u(${i}, ${quote(d.shared ? d.name : `${seed}:${d.name}`)})`;

/** An address for event i: a labelled public address ~6% of the time, else one from a repeating pool. */
export function partySql(tag: string, role: string, poolSize = 20_000): string {
  return `coalesce(CASE WHEN u(i, '${tag}:${role}:l') < 0.06 THEN (SELECT address FROM demo_labelled
            WHERE idx = floor(u(i, '${tag}:${role}:li') * (SELECT count(*) FROM demo_labelled))::BIGINT) END,
          addr('${role === 'sender' || role === 'user' ? 'a' : 'b'}', zipf(u(i, '${tag}:${role}'), ${poolSize})))`;
}

/** 10^decimals: a literal for a fixed number of decimals, the column for a token's. */
const scaleOf = (decimals: number | 'token') => (decimals === 'token' ? 'pow(10, token_decimals)' : `1e${decimals}`);

const TOKEN_COLUMN: Readonly<Record<TokenField, string>> = { address: 'address', symbol: 'symbol', decimals: 'decimals' };

/** The SQL of one column's value, over the row the events' source gives (see source()). */
function valueSql(e: DemoEvents, v: DemoValue): string {
  switch (v.kind) {
    case 'log':
      return v.field === 'network' ? quote(e.network) : v.field;
    case 'constant':
      return typeof v.value === 'string' ? quote(v.value) : String(v.value);
    case 'party':
      return partySql(e.seed, v.role, v.among);
    case 'either':
      return `CASE WHEN ${u('i', e.seed, v.draw)} < ${v.chance} THEN ${valueSql(e, v.then)} ELSE ${valueSql(e, v.otherwise)} END`;
    case 'chance':
      return `${u('i', e.seed, v.draw)} < ${v.chance}`;
    case 'uniform': {
      const x = `${v.from} + ${v.span} * ${u('i', e.seed, v.draw)}`;
      return v.part === 'units' ? x : `CAST(round((${x}) * 1e${v.decimals}) AS HUGEINT)::BIGNUM`;
    }
    case 'grid':
      return `(${v.from} + ${v.step} * floor(${u('i', e.seed, v.draw)} * ${v.count}))::INTEGER`;
    case 'sequence':
      return `${v.from} + row_number() OVER (ORDER BY block_number, log_index)`;
    case 'registryAddress':
      return `coalesce((SELECT address FROM tokens WHERE network = ${quote(e.network)} AND symbol = ${quote(v.symbol)} AND address <> '' LIMIT 1), '')`;
    case 'nested': {
      const depth = `CASE WHEN log_index > 0 AND ${u('i', e.seed, v.draw)} < ${v.chance} THEN 1 ELSE 0 END`;
      return v.field === 'depth' ? `(${depth})::INTEGER` : `(log_index - ${depth})::INTEGER`;
    }
    case 'token':
      return `${v.second ? 'second' : 'token'}_${TOKEN_COLUMN[v.field]}`;
    case 'amount': {
      const raw = v.share ? `(raw * ${v.share.times} // ${v.share.per})` : 'raw';
      return v.part === 'raw' ? `${raw}::BIGNUM` : `${raw}::DOUBLE / ${scaleOf(decimalsOf(e))}`;
    }
    case 'secondAmount': {
      const worth = `round(raw::DOUBLE / ${scaleOf(decimalsOf(e))} / second_scale * token_scale * ${v.times} * pow(10, second_decimals))`;
      return v.part === 'raw' ? `CAST(${worth} AS HUGEINT)::BIGNUM` : `${worth} / pow(10, second_decimals)`;
    }
    case 'market':
      return v.field === 'name' ? 'market_name' : 'market_contract';
    case 'pool':
      return 'pool_address';
    case 'poolToken':
      return `token${v.side}${v.field === 'symbol' ? '' : `_${v.field}`}`;
    case 'poolAmount':
      return scaledInt(`a${v.side}`, `token${v.side}_decimals`, v.part);
    case 'poolPrice':
      if (v.field === 'price') return 'px';
      // sqrtPriceX96 = sqrt(token1 per token0 in base units) · 2^96
      return v.field === 'sqrtX96' ? 'CAST(sqrt(px_raw) * pow(2, 96) AS HUGEINT)::BIGNUM' : 'floor(ln(px_raw) / ln(1.0001))::INTEGER';
    case 'baseTimes':
      return `CAST(base * ${v.times} AS HUGEINT)::BIGNUM`;
    case 'wave': {
      const x = `${v.level} * (1 + ${v.swing} * sin(block_number / ${v.period}.0)) * (${v.from} + ${v.span} * ${u('i', e.seed, v.draw)})`;
      return v.part === 'raw' ? `CAST(${x} AS HUGEINT)::BIGNUM` : x;
    }
  }
}

const scaledInt = (x: string, decimals: string, part: AmountPart) =>
  part === 'raw' ? `CAST(round(${x} * pow(10, ${decimals})) AS HUGEINT)::BIGNUM` : `round(${x} * pow(10, ${decimals})) / pow(10, ${decimals})`;

function decimalsOf(e: DemoEvents): number | 'token' {
  if (!e.amount) throw new Error(`demo: ${e.seed} takes an amount but declares none`);
  return e.amount.decimals;
}

/** The events with what their values read: the skeleton's log fields and seed `i`, the picks, the amount and the trade. */
function source(ctx: DemoContext, e: DemoEvents): string {
  const fields = ['s.*'];
  const joins: string[] = [];
  const pick = (table: string, alias: string, d: Draw) => `JOIN ${table} ${alias} ON ${alias}.cum = (SELECT min(cum) FROM ${table} WHERE cum >= ${u('s.i', e.seed, d)})`;
  if (e.markets) {
    fields.push('mk.market AS market_name', 'mk.contract AS market_contract');
    joins.push(pick('demo_markets', 'mk', e.markets.draw));
  }
  if (e.tokens) {
    fields.push('k.symbol AS token_symbol', 'k.address AS token_address', 'k.decimals AS token_decimals', 'k.scale AS token_scale');
    joins.push(pick('demo_tokens', 'k', e.tokens.draw));
    if (e.tokens.second) {
      fields.push('c.symbol AS second_symbol', 'c.address AS second_address', 'c.decimals AS second_decimals', 'c.scale AS second_scale');
      joins.push(pick('demo_tokens', 'c', e.tokens.second));
    }
  }
  if (e.amount) {
    const scale = e.amount.scale === 'token' ? 'k.scale' : String(e.amount.scale);
    const ten = e.amount.decimals === 'token' ? 'pow(10, k.decimals)' : `1e${e.amount.decimals}`;
    fields.push(`CAST(round(pareto(${u('s.i', e.seed, { name: 'amt' })}, ${scale}, ${e.amount.alpha}) * ${ten}) AS HUGEINT) AS raw`);
  }
  const events = `(SELECT ${fields.join(', ')} FROM ${skeleton(ctx, e.network, e.seed, e.perDay)} s ${joins.join(' ')})`;
  return e.trade ? tradeSource(e, events) : events;
}

/** A trade's pool, its two signed amounts and the pool's price after it. */
function tradeSource(e: DemoEvents, events: string): string {
  const t = e.trade;
  if (!t) return events;
  const p = t.pool;
  const traded = `(SELECT e.*, pl.pool_address, pl.token0_address, pl.token0, pl.token0_decimals, pl.token1_address, pl.token1, pl.token1_decimals,
                          pp.price AS base_price,
                          pareto(${u('e.i', e.seed, { name: 'amt' })}, ${t.scale}, ${t.alpha}) AS base,
                          ${u('e.i', e.seed, { name: 'dir' })} < 0.5 AS sells_base
                   FROM ${events} e
                   JOIN pools pl ON pl.network = ${quote(e.network)} AND pl.fee = ${p.fee} AND pl.pool_address = ${quote(p.address)}
                   JOIN demo_price_path pp ON pp.symbol = ${quote(p.priceOf)} AND pp.minute = date_trunc('minute', e.time))`;
  const quoted = `(SELECT *, base * base_price${t.swap ? ` * (1 - ${p.fee} / 1e6)` : ''} AS quote_amount FROM ${traded})`;
  // Signed pool-side amounts: positive entered the pool. A swap sells the base or buys it.
  const [sign, quoteSign] = t.swap ? ['CASE WHEN sells_base THEN 1 ELSE -1 END * ', 'CASE WHEN sells_base THEN -1 ELSE 1 END * '] : ['', ''];
  const baseIs0 = `token0 = ${quote(p.base)}`;
  return `(SELECT *,
            CASE WHEN ${baseIs0} THEN base_price ELSE 1 / base_price END AS px,
            CASE WHEN ${baseIs0} THEN base_price ELSE 1 / base_price END * pow(10, token1_decimals::INTEGER - token0_decimals::INTEGER) AS px_raw,
            CASE WHEN ${baseIs0} THEN ${sign}base ELSE ${quoteSign}quote_amount END AS a0,
            CASE WHEN ${baseIs0} THEN ${quoteSign}quote_amount ELSE ${sign}base END AS a1
          FROM ${quoted})`;
}

/** The picks' tables for these events: their network's markets and the mix's tokens its registry knows, each with its cumulative share. */
async function pickTables(ctx: DemoContext, e: DemoEvents): Promise<void> {
  if (e.markets) {
    await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_markets AS
      SELECT *, sum(share) OVER (ORDER BY share DESC, market) AS cum
      FROM (VALUES ${e.markets.list.map((m) => `(${quote(m.market)}, ${quote(m.contract)}, ${m.share})`).join(', ')}) v(market, contract, share)`);
  }
  if (e.tokens) {
    await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_tokens AS
      SELECT m.symbol, any_value(tk.address) AS address, any_value(tk.decimals) AS decimals, any_value(m.scale) AS scale,
             sum(any_value(m.weight)) OVER (ORDER BY any_value(m.weight) DESC, m.symbol) / sum(any_value(m.weight)) OVER () AS cum
      FROM (VALUES ${e.tokens.mix.map((t) => `(${quote(t.symbol)}, ${t.weight}, ${t.scale})`).join(', ')}) m(symbol, weight, scale)
      JOIN tokens tk ON tk.symbol = m.symbol AND tk.network = ${quote(e.network)} AND tk.address <> ''
      GROUP BY m.symbol`);
  }
}

/** Registers the pools the events trade on, token0 being the lower address as in a factory. */
async function registerPools(ctx: DemoContext, pools: readonly (readonly [string, DemoPool])[]): Promise<void> {
  if (pools.length === 0) return;
  await ctx.tx.run(`DELETE FROM pools WHERE pool_address IN (${pools.map(([, p]) => quote(p.address)).join(', ')})`);
  for (const [network, p] of pools) {
    const low = 'b.address < q.address';
    await ctx.tx.run(`INSERT INTO pools (network, pool_address, fee, token0_address, token0, token0_decimals, token1_address, token1, token1_decimals, created_block)
      SELECT ${quote(network)}, ${quote(p.address)}, ${p.fee},
             CASE WHEN ${low} THEN b.address ELSE q.address END, CASE WHEN ${low} THEN b.symbol ELSE q.symbol END,
             CASE WHEN ${low} THEN b.decimals ELSE q.decimals END,
             CASE WHEN ${low} THEN q.address ELSE b.address END, CASE WHEN ${low} THEN q.symbol ELSE b.symbol END,
             CASE WHEN ${low} THEN q.decimals ELSE b.decimals END, NULL
      FROM tokens b JOIN tokens q ON q.network = b.network AND q.symbol = ${quote(p.quote)} AND q.address <> ''
      WHERE b.network = ${quote(network)} AND b.symbol = ${quote(p.base)} AND b.address <> ''`);
  }
}

/** The dataset of a protocol's event; throws for an event the protocol's catalog does not declare. */
export function endpointOf(protocol: EvmProtocol, event: string): ChainEndpoint {
  const e = protocol.endpoints.find((x) => x.event === event);
  if (!e) throw new Error(`demo: ${protocol.name} has no dataset for event ${event}`);
  return e;
}

/** The description's value of each column of the dataset's table, in the table's order; throws when it misses or invents a column. */
export function columnValues(endpoint: ChainEndpoint, e: DemoEvents): { readonly column: string; readonly value: DemoValue }[] {
  const table = endpoint.table.columns.map((c) => c.name);
  const unknown = Object.keys(e.columns).filter((c) => !table.includes(c));
  const out = table.flatMap((column) => {
    const value = e.columns[column];
    return value ? [{ column, value }] : [];
  });
  const missing = table.filter((c) => !out.some((x) => x.column === c));
  if (missing.length || unknown.length) throw new Error(`demo: ${endpoint.id} on ${e.network}: ${[...missing.map((c) => `no value for ${c}`), ...unknown.map((c) => `no column ${c}`)].join(', ')}`);
  return out;
}

/** The INSERT of some events into their dataset's table, every column by name. */
function insertSql(ctx: DemoContext, endpoint: ChainEndpoint, e: DemoEvents): string {
  const values = columnValues(endpoint, e);
  return `INSERT INTO ${endpoint.table.name} (${values.map((v) => `"${v.column}"`).join(', ')})
    SELECT ${values.map((v) => valueSql(e, v.value)).join(',\n           ')}
    FROM ${source(ctx, e)}
    ORDER BY block_number, log_index`;
}

/** Writes a protocol's demo rows, then records each dataset's coverage on each network the demo fills. */
export async function writeProtocolDemo(ctx: DemoContext, protocol: EvmProtocol): Promise<void> {
  const events = protocol.demo?.events ?? [];
  const pools = new Map<string, readonly [string, DemoPool]>();
  for (const e of events) if (e.trade) pools.set(e.trade.pool.address, [e.network, e.trade.pool]);
  await registerPools(ctx, [...pools.values()]);
  const filled = new Map<string, readonly [string, string]>();
  for (const e of events) {
    const endpoint = endpointOf(protocol, e.event);
    await pickTables(ctx, e);
    await ctx.tx.run(insertSql(ctx, endpoint, e));
    filled.set(`${endpoint.id} ${e.network}`, [endpoint.id, e.network]);
  }
  for (const [dataset, network] of filled.values()) await finish(ctx, dataset, network);
}
