/**
 * The USD value of one event row, as SQL: each priced leg (amount and token
 * symbol, from the catalog) times the token's price at the event's minute,
 * from the `prices` table that `refreshPrices` builds. Unknown prices give
 * null, never 0.
 */
import type { ChainEndpoint, PricedLeg } from '../../catalog/types.ts';

export interface RowValueSql {
  /** LEFT JOINs to append after `FROM <table> t`. */
  readonly joins: string;
  /** The row's value in USD, or null. */
  readonly expr: string;
}

export function pricedLegs(e: ChainEndpoint): { combine: 'sum' | 'first_priced'; legs: readonly PricedLeg[] } | null {
  if (e.pricedLegs) return e.pricedLegs;
  if (e.pricedAmount) return { combine: 'first_priced', legs: [e.pricedAmount] };
  return null;
}

/**
 * `columnSql` gives each leg's column expression under the request (an
 * amount rescaled by `decimals`, a swap side). Null when the endpoint has no
 * pricing in the catalog.
 */
export function rowValueSql(e: ChainEndpoint, columnSql: (name: string) => string): RowValueSql | null {
  const pricing = pricedLegs(e);
  if (!pricing) return null;
  const minute = `date_trunc('minute', t.time)`;
  const joins: string[] = [];
  const legs = pricing.legs.map((leg, i) => {
    const token = `upper(${columnSql(leg.token)})`;
    // A market price at the minute, else a peg (a row without minute, for stablecoins with no market of their own).
    joins.push(`LEFT JOIN prices __pm${i} ON __pm${i}.token = ${token} AND __pm${i}.minute = ${minute}`);
    joins.push(`LEFT JOIN prices __pp${i} ON __pp${i}.token = ${token} AND __pp${i}.minute IS NULL`);
    const amount = columnSql(leg.amount);
    return { amount, value: `(${amount} * coalesce(__pm${i}.usd, __pp${i}.usd))` };
  });
  const expr = pricing.combine === 'first_priced'
    ? (legs.length === 1 ? legs[0]!.value : `coalesce(${legs.map((l) => l.value).join(', ')})`)
    // A leg that moved nothing needs no price; any other unpriced leg makes the sum unknown.
    : `(${legs.map((l) => `CASE WHEN ${l.amount} = 0 THEN 0 ELSE ${l.value} END`).join(' + ')})`;
  return { joins: joins.join(' '), expr };
}
