/**
 * The USD value of one event row: each priced leg (amount and token symbol,
 * from the catalog) times the token's price at the event's minute. The store
 * renders it against its prices table; unknown prices give null, never 0.
 */
import type { ChainEndpoint, PricedLeg } from '../../catalog/types.ts';
import type { Expr, RowValue } from '../../store/query.ts';

export function pricedLegs(e: ChainEndpoint): { combine: 'sum' | 'first_priced'; legs: readonly PricedLeg[] } | null {
  if (e.pricedLegs) return e.pricedLegs;
  if (e.pricedAmount) return { combine: 'first_priced', legs: [e.pricedAmount] };
  return null;
}

/**
 * `columnExpr` gives each leg's column expression under the request (an
 * amount rescaled by `decimals`, a swap side). Null when the endpoint has no
 * pricing in the catalog.
 */
export function rowValue(e: ChainEndpoint, columnExpr: (name: string) => Expr): RowValue | null {
  const pricing = pricedLegs(e);
  if (!pricing) return null;
  return {
    combine: pricing.combine,
    legs: pricing.legs.map((leg) => ({ amount: columnExpr(leg.amount), token: columnExpr(leg.token) })),
  };
}
