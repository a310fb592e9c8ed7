/**
 * Exchange-venue demo data for BTC, ETH and SOL, priced off the same
 * per-minute random walk (`demo_price_path`) as the EVM swaps.
 *
 * - Trades come in bursts: a taker sweeping a few levels, mostly in one
 *   direction, bursts denser in the afternoon (UTC) than at night.
 * - 1-minute candles are derived from those trades by SQL, so that candles
 *   and trades agree exactly.
 * - venue_a book depth every ~30 s at 12 levels, growing with the distance
 *   from mid; metrics every 5 minutes; funding every 8 hours.
 * - venue_b fills carry both sides of every trade with running positions per
 *   wallet (start position, direction, realised PnL); trades are the taker
 *   side; positions are hourly snapshots valued at the mark; funding hourly.
 */
import { addCoverage } from '../coverageWrites.ts';
import { bulkInsert, type CsvValue } from './bulkInsert.ts';
import type { DemoContext } from './context.ts';

interface Market {
  readonly symbol: string;
  readonly tradesPerDay: number;
  readonly tick: number;
  /** Decimals of the price tick and of the size lot. */
  readonly priceDecimals: number;
  readonly lot: number;
  readonly sizeDecimals: number;
  /** Pareto scale of a trade's size, base units. */
  readonly size: number;
}

const VENUE_A: readonly (Market & { depth: number; openInterest: number; firstId: number })[] = [
  { symbol: 'BTC', tradesPerDay: 60_000, tick: 0.1, priceDecimals: 1, lot: 0.001, sizeDecimals: 3, size: 0.004, depth: 300, openInterest: 80_000, firstId: 6_500_000_000 },
  { symbol: 'ETH', tradesPerDay: 45_000, tick: 0.01, priceDecimals: 2, lot: 0.001, sizeDecimals: 3, size: 0.08, depth: 6_000, openInterest: 2_000_000, firstId: 5_800_000_000 },
  { symbol: 'SOL', tradesPerDay: 25_000, tick: 0.001, priceDecimals: 3, lot: 0.01, sizeDecimals: 2, size: 2, depth: 60_000, openInterest: 9_000_000, firstId: 2_100_000_000 },
];

const VENUE_B: readonly Market[] = [
  { symbol: 'BTC', tradesPerDay: 20_000, tick: 1, priceDecimals: 0, lot: 0.00001, sizeDecimals: 5, size: 0.01 },
  { symbol: 'ETH', tradesPerDay: 15_000, tick: 0.1, priceDecimals: 1, lot: 0.0001, sizeDecimals: 4, size: 0.2 },
  { symbol: 'SOL', tradesPerDay: 8_000, tick: 0.01, priceDecimals: 2, lot: 0.01, sizeDecimals: 2, size: 5 },
];

const WALLETS = 400;
const DEPTH_LEVELS = [-500, -400, -300, -200, -100, -20, 20, 100, 200, 300, 400, 500] as const;

interface Window {
  readonly start: number;
  readonly end: number;
}

const windowOf = (ctx: DemoContext): Window => ({ start: ctx.start, end: ctx.start + Math.round(ctx.days * 86_400_000) });

/** The price path per token and minute index, with the next minute's price for interpolation. */
async function pricePerMinute(ctx: DemoContext, w: Window): Promise<void> {
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_px AS
    SELECT symbol, (epoch_ms(minute) - ${w.start}) // 60000 AS m, price,
           coalesce(lead(price) OVER (PARTITION BY symbol ORDER BY minute), price) AS next_price
    FROM demo_price_path`);
}

/** The path price at epoch-ms expression `t`, interpolated within the minute; needs `demo_px px` joined on the minute. */
const pathPrice = (t: string, w: Window) => `(px.price + (px.next_price - px.price) * ((${t} - ${w.start}) % 60000) / 60000.0)`;
const minuteJoin = (t: string, w: Window, symbol: string) => `JOIN demo_px px ON px.symbol = ${symbol} AND px.m = (${t} - ${w.start}) // 60000`;

/**
 * Trades of one market into `table`: bursts placed with a daily intensity
 * cycle, 1–40 trades each, a few milliseconds apart, pushing the price a
 * little in the burst's direction around the path price.
 */
async function burstTrades(ctx: DemoContext, w: Window, table: string, tag: string, m: Market): Promise<void> {
  const trades = m.tradesPerDay * ctx.days * ctx.scale;
  // About 3.2 trades per burst (the Pareto burst size, floored and capped), and 60% of candidate bursts are kept.
  const candidates = Math.max(1, Math.ceil(trades / 3.2 / 0.6));
  const span = w.end - w.start;
  const key = `'${m.symbol}:${tag}`;
  await ctx.tx.run(`INSERT INTO ${table}
    SELECT '${m.symbol}' AS token, t, b, j, up, taker,
           round(round(${pathPrice('t', w)} * (1 + (CASE WHEN up THEN 1 ELSE -1 END) * 0.00003 * j + 0.0002 * (u(b * 64 + j, ${key}:px') - 0.5)) / ${m.tick}) * ${m.tick}, ${m.priceDecimals}) AS price,
           round(greatest(${m.lot}, round(pareto(u(b * 64 + j, ${key}:amt'), ${m.size}, 1.4) / ${m.lot}) * ${m.lot}), ${m.sizeDecimals}) AS amount,
           u(b * 64 + j, ${key}:side') < CASE WHEN up THEN 0.8 ELSE 0.2 END AS buy,
           zipf(u(b * 64 + j, ${key}:maker'), ${WALLETS}) AS maker
    FROM (SELECT *, t0 + j * gap + floor(u(b * 64 + j, ${key}:jit') * gap)::BIGINT AS t
          FROM (SELECT *, unnest(range(n)) AS j
                FROM (SELECT b, t0, 1 + least(39, floor(pareto(u(b, ${key}:n'), 1, 1.3)))::BIGINT AS n,
                             u(b, ${key}:dir') < 0.5 AS up, 5 + floor(u(b, ${key}:gap') * 120)::BIGINT AS gap,
                             zipf(u(b, ${key}:taker'), ${WALLETS}) AS taker
                      FROM (SELECT b, ${w.start} + floor(u(b, ${key}:t') * ${span})::BIGINT AS t0 FROM range(${candidates}) r(b))
                      -- Busier in the afternoon UTC, quieter at night.
                      WHERE u(b, ${key}:keep') < 0.6 + 0.4 * sin(2 * pi() * (((t0 - ${w.start}) / 3600000.0) - 8) / 24))))
    ${minuteJoin('t', w, `'${m.symbol}'`)}
    WHERE t < ${w.end}`);
}

async function coverVenue(ctx: DemoContext, w: Window, venue: string, events: readonly string[], tokens: readonly string[]): Promise<void> {
  for (const event of events) {
    const dataset = `exchange/${venue}/${event}`;
    for (const token of tokens) {
      await ctx.tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $token`, { dataset, token });
      await addCoverage(ctx.tx, dataset, token, w.start, w.end - 1);
    }
  }
}

async function clearWindow(ctx: DemoContext, w: Window, tables: readonly string[], tokens: readonly string[]): Promise<void> {
  for (const table of tables) {
    await ctx.tx.run(`DELETE FROM ${table} WHERE token IN (${tokens.map((t) => `'${t}'`).join(', ')})
      AND time >= epoch_ms(${w.start}::BIGINT) AND time < epoch_ms(${w.end}::BIGINT)`);
  }
}

// ---------------------------------------------------------------------------
// venue_a

async function venueA(ctx: DemoContext, w: Window): Promise<void> {
  const tokens = VENUE_A.map((m) => m.symbol);
  await clearWindow(ctx, w, ['venue_a_trades', 'venue_a_klines', 'venue_a_book_depth', 'venue_a_metrics', 'venue_a_funding'], tokens);
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_va_trades (token VARCHAR, t BIGINT, b BIGINT, j BIGINT, up BOOLEAN, taker BIGINT, price DOUBLE, amount DOUBLE, buy BOOLEAN, maker BIGINT)`);
  for (const m of VENUE_A) await burstTrades(ctx, w, 'demo_va_trades', 'va', m);
  await ctx.tx.run(`INSERT INTO venue_a_trades
    SELECT d.token, epoch_ms(t), f.first_id + row_number() OVER (PARTITION BY d.token ORDER BY t, b, j) - 1, price, amount,
           round(price * amount, 8), buy
    FROM demo_va_trades d JOIN (VALUES ${VENUE_A.map((m) => `('${m.symbol}', ${m.firstId})`).join(', ')}) f(token, first_id) ON f.token = d.token
    ORDER BY d.token, t, b, j`);
  // 1-minute candles from the trades themselves: ids rise with time, so they order the minute.
  await ctx.tx.run(`INSERT INTO venue_a_klines
    SELECT token, date_trunc('minute', time) AS minute, arg_min(price, id), max(price), min(price), arg_max(price, id),
           sum(amount), sum(quote_amount), count(*), sum(CASE WHEN buy THEN amount ELSE 0 END)
    FROM venue_a_trades WHERE token IN (${tokens.map((t) => `'${t}'`).join(', ')}) AND time >= epoch_ms(${w.start}::BIGINT) AND time < epoch_ms(${w.end}::BIGINT)
    GROUP BY token, minute ORDER BY token, minute`);

  const markets = `(VALUES ${VENUE_A.map((m) => `('${m.symbol}', ${m.depth}, ${m.openInterest})`).join(', ')}) mk(symbol, depth_1pct, oi)`;
  // Book depth: a snapshot about every 30 s; cumulative depth grows with the distance from mid.
  const snapshots = Math.floor((w.end - w.start) / 30_000);
  await ctx.tx.run(`INSERT INTO venue_a_book_depth
    SELECT symbol, epoch_ms(t), pct, depth, round(depth * mid * (1 + pct / 20000.0), 2)
    FROM (SELECT s.*, lv.pct,
                 round(s.depth_1pct * pow(abs(lv.pct) / 100.0, 0.85) * (1 + 0.3 * (u(s.k * 2 + (lv.pct > 0)::INTEGER, s.symbol || ':bd:side') - 0.5))
                       * (1 + 0.03 * (u(s.k * 16 + lv.pct, s.symbol || ':bd:lvl') - 0.5)), 3) AS depth
          FROM (SELECT mk.symbol, mk.depth_1pct, k, t, ${pathPrice('t', w)} AS mid
                FROM ${markets}, (SELECT k, ${w.start} + k * 30000 + floor(u(k, 'bd:jit') * 3)::BIGINT * 1000 AS t FROM range(${snapshots}) r(k))
                ${minuteJoin('t', w, 'mk.symbol')}) s,
               (VALUES ${DEPTH_LEVELS.map((p) => `(${p})`).join(', ')}) lv(pct))
    ORDER BY symbol, t, pct`);

  // Metrics every 5 minutes; the taker ratio is that of the trades of the 5 minutes before.
  const fives = Math.floor((w.end - w.start) / 300_000);
  await ctx.tx.run(`INSERT INTO venue_a_metrics
    SELECT symbol, epoch_ms(s.t), round(oi, 3), round(oi * mid, 2),
           round(1.3 + 0.35 * sin(k / 41.0 + phase) + 0.05 * (u(k, symbol || ':m:a') - 0.5), 4),
           round(1.1 + 0.25 * sin(k / 57.0 + phase) + 0.05 * (u(k, symbol || ':m:b') - 0.5), 4),
           round(1.6 + 0.5 * sin(k / 73.0 + phase) + 0.08 * (u(k, symbol || ':m:c') - 0.5), 4),
           round(coalesce(tk.buy_volume / nullif(tk.sell_volume, 0), 1), 4)
    FROM (SELECT mk.symbol, k, t, mk.oi * exp(sum(0.004 * (u(k, mk.symbol || ':m:oi') - 0.5)) OVER (PARTITION BY mk.symbol ORDER BY k)) AS oi,
                 length(mk.symbol) AS phase, ${pathPrice('t', w)} AS mid
          FROM ${markets}, (SELECT k, ${w.start} + k * 300000 AS t FROM range(${fives}) r(k))
          ${minuteJoin('t', w, 'mk.symbol')}) s
    LEFT JOIN (SELECT token, (epoch_ms(time) // 300000 + 1) * 300000 AS t,
                      sum(CASE WHEN buy THEN amount ELSE 0 END) AS buy_volume, sum(CASE WHEN buy THEN 0 ELSE amount END) AS sell_volume
               FROM venue_a_trades GROUP BY ALL) tk ON tk.token = s.symbol AND tk.t = s.t
    ORDER BY symbol, s.t`);

  // Funding at 00:00, 08:00 and 16:00 UTC.
  const eights = Math.ceil((w.end - w.start) / 28_800_000);
  await ctx.tx.run(`INSERT INTO venue_a_funding
    SELECT mk.symbol, epoch_ms(t), round(0.0001 + 0.0002 * (u(k, mk.symbol || ':f') - 0.35), 8), 8
    FROM ${markets}, (SELECT k, ${w.start} + k * 28800000 AS t FROM range(${eights}) r(k)) WHERE t < ${w.end}
    ORDER BY mk.symbol, t`);
  await coverVenue(ctx, w, 'venue_a', ['raw_trades', 'ohlcv', 'book_depth', 'open_interest', 'funding_rate', 'long_short_ratios'], tokens);
}

// ---------------------------------------------------------------------------
// venue_b

const FILL_COLUMNS = [
  ['token', 'VARCHAR'],
  ['time', 'TIMESTAMP'],
  ['wallet', 'VARCHAR'],
  ['price', 'DOUBLE'],
  ['size', 'DOUBLE'],
  ['side', 'VARCHAR'],
  ['dir', 'VARCHAR'],
  ['start_position', 'DOUBLE'],
  ['closed_pnl', 'DOUBLE'],
  ['fee', 'DOUBLE'],
  ['fee_token', 'VARCHAR'],
  ['crossed', 'BOOLEAN'],
  ['tid', 'BIGINT'],
  ['oid', 'BIGINT'],
  ['hash', 'VARCHAR'],
  ['block_number', 'BIGINT'],
] as const;
const POSITION_COLUMNS = [
  ['token', 'VARCHAR'],
  ['time', 'TIMESTAMP'],
  ['wallet', 'VARCHAR'],
  ['side', 'VARCHAR'],
  ['size', 'DOUBLE'],
  ['avg_entry', 'DOUBLE'],
  ['mark_price', 'DOUBLE'],
  ['unrealized_pnl', 'DOUBLE'],
] as const;

interface Position {
  pos: number;
  avg: number;
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const iso = (ms: number) => new Date(ms).toISOString();

/** The direction label of a fill, as venue_b names it. */
function direction(buy: boolean, start: number, after: number): string {
  if (buy) return start >= 0 ? 'Open Long' : after <= 0 ? 'Close Short' : 'Short > Long';
  return start <= 0 ? 'Open Short' : after >= 0 ? 'Close Long' : 'Long > Short';
}

/** Applies a fill to a position; returns the realised PnL of the part that closed. */
function applyFill(p: Position, signed: number, price: number, decimals: number): number {
  const start = p.pos;
  const after = round(start + signed, decimals);
  let pnl = 0;
  if (start === 0 || Math.sign(start) === Math.sign(signed)) {
    p.avg = (Math.abs(start) * p.avg + Math.abs(signed) * price) / (Math.abs(start) + Math.abs(signed));
  } else {
    const closed = Math.min(Math.abs(signed), Math.abs(start));
    pnl = closed * (price - p.avg) * Math.sign(start);
    if (after === 0) p.avg = 0;
    else if (Math.sign(after) !== Math.sign(start)) p.avg = price;
  }
  p.pos = after;
  return pnl;
}

interface TradeRow {
  token: string;
  t: bigint;
  tid: bigint;
  price: number;
  amount: number;
  buy: boolean;
  taker: string;
  maker: string;
  taker_oid: bigint;
  maker_oid: bigint;
  hash: string;
  block: bigint;
}

async function venueB(ctx: DemoContext, w: Window): Promise<void> {
  const tokens = VENUE_B.map((m) => m.symbol);
  const decimals = new Map(VENUE_B.map((m) => [m.symbol, m.sizeDecimals]));
  await clearWindow(ctx, w, ['venue_b_fills', 'venue_b_trades', 'venue_b_candles', 'venue_b_positions', 'venue_b_funding'], tokens);
  await ctx.tx.run(`CREATE OR REPLACE TEMP TABLE demo_vb_trades (token VARCHAR, t BIGINT, b BIGINT, j BIGINT, up BOOLEAN, taker BIGINT, price DOUBLE, amount DOUBLE, buy BOOLEAN, maker BIGINT)`);
  for (const m of VENUE_B) await burstTrades(ctx, w, 'demo_vb_trades', 'vb', m);
  // One taker order per burst sweeps several resting maker orders.
  const trades = await ctx.tx.all<TradeRow>(`
    SELECT token, t, 300000000000 + row_number() OVER (ORDER BY t, token, b, j) AS tid, price, amount, buy,
           addr('hl', taker) AS taker, addr('hl', CASE WHEN maker = taker THEN (maker + 1) % ${WALLETS} ELSE maker END) AS maker,
           90000000000 + b * 4 + list_position(['BTC', 'ETH', 'SOL'], token) AS taker_oid,
           80000000000 + (h(b * 64 + j, token || ':vb:oid') % 1000000000)::BIGINT AS maker_oid,
           txh(token || ':vb:' || b) AS hash, 800000000 + (t - ${w.start}) // 100 AS block
    FROM demo_vb_trades ORDER BY t, tid`);

  const marks = new Map<string, number>();
  for (const r of await ctx.tx.all<{ symbol: string; t: bigint; price: number }>(`SELECT symbol, epoch_ms(minute) AS t, price FROM demo_price_path WHERE minute = date_trunc('hour', minute)`))
    marks.set(`${r.symbol}|${Number(r.t)}`, r.price);

  const positions = new Map<string, Position>();
  const open = new Set<string>();
  const fills: CsvValue[][] = [];
  const snapshots: CsvValue[][] = [];
  let nextSnapshot = w.start + 3_600_000;
  const snapshot = (at: number) => {
    const nowOpen = new Set<string>();
    for (const [key, p] of positions) {
      if (p.pos === 0 && !open.has(key)) continue;
      const [wallet, token] = key.split('|') as [string, string];
      const mark = marks.get(`${token}|${at}`);
      if (mark === undefined) continue;
      if (p.pos !== 0) nowOpen.add(key);
      // A position closed since the last snapshot shows once as flat.
      snapshots.push([token, iso(at), wallet, p.pos > 0 ? 'long' : p.pos < 0 ? 'short' : 'flat', Math.abs(p.pos), round(p.avg, 6), round(mark, 6), round((mark - p.avg) * p.pos, 6)]);
    }
    open.clear();
    for (const k of nowOpen) open.add(k);
  };
  for (const tr of trades) {
    const t = Number(tr.t);
    while (t >= nextSnapshot) {
      snapshot(nextSnapshot);
      nextSnapshot += 3_600_000;
    }
    const d = decimals.get(tr.token)!;
    const notional = tr.price * tr.amount;
    for (const [wallet, buy, crossed, oid, feeRate] of [
      [tr.taker, tr.buy, true, tr.taker_oid, 0.00045],
      [tr.maker, !tr.buy, false, tr.maker_oid, 0.00015],
    ] as const) {
      const key = `${wallet}|${tr.token}`;
      let p = positions.get(key);
      if (!p) {
        p = { pos: 0, avg: 0 };
        positions.set(key, p);
      }
      const start = p.pos;
      const pnl = applyFill(p, buy ? tr.amount : -tr.amount, tr.price, d);
      fills.push([
        tr.token,
        iso(t),
        wallet,
        tr.price,
        tr.amount,
        buy ? 'B' : 'A',
        direction(buy, start, p.pos),
        start,
        round(pnl, 6),
        round(notional * feeRate, 6),
        'USDC',
        crossed,
        tr.tid,
        oid,
        tr.hash,
        tr.block,
      ]);
    }
  }
  while (nextSnapshot < w.end) {
    snapshot(nextSnapshot);
    nextSnapshot += 3_600_000;
  }
  await bulkInsert(ctx.tx, 'venue_b_fills', FILL_COLUMNS, fills);
  await bulkInsert(ctx.tx, 'venue_b_positions', POSITION_COLUMNS, snapshots);

  const inWindow = `token IN (${tokens.map((t) => `'${t}'`).join(', ')}) AND time >= epoch_ms(${w.start}::BIGINT) AND time < epoch_ms(${w.end}::BIGINT)`;
  await ctx.tx.run(`INSERT INTO venue_b_trades
    SELECT token, time, tid, price, size, side = 'B', hash FROM venue_b_fills WHERE crossed AND ${inWindow} ORDER BY token, time, tid`);
  await ctx.tx.run(`INSERT INTO venue_b_candles
    SELECT token, date_trunc('minute', time) AS minute, arg_min(price, tid), max(price), min(price), arg_max(price, tid), sum(amount), count(*)
    FROM venue_b_trades WHERE ${inWindow} GROUP BY token, minute ORDER BY token, minute`);
  const hours = Math.ceil((w.end - w.start) / 3_600_000);
  await ctx.tx.run(`INSERT INTO venue_b_funding
    SELECT symbol, epoch_ms(t), round(0.0000125 + 0.00003 * (u(k, symbol || ':vbf') - 0.4), 10), round(0.0003 * (u(k, symbol || ':vbp') - 0.5), 8)
    FROM (VALUES ${tokens.map((t) => `('${t}')`).join(', ')}) mk(symbol), (SELECT k, ${w.start} + k * 3600000 AS t FROM range(${hours}) r(k))
    WHERE t < ${w.end} ORDER BY symbol, t`);
  await coverVenue(ctx, w, 'venue_b', ['raw_trades', 'ohlcv', 'fills', 'positions', 'funding'], tokens);
}

export async function venueDemo(ctx: DemoContext): Promise<void> {
  const w = windowOf(ctx);
  await pricePerMinute(ctx, w);
  await venueA(ctx, w);
  await venueB(ctx, w);
}
