/** Which planner answers a data route, with the checks every plan passes before anything is held or run. */
import type { DataRoute } from '../catalog/derive/routes.ts';
import { isLinkFormat } from '../catalog/formats.ts';
import { ApiError } from '../errors/apiError.ts';
import { planAggregate } from './planAggregate.ts';
import { planRaw, type PlanContext, type QueryPlan } from './planRaw.ts';
import { planVenue } from './planVenue.ts';
import { assertWithinSpendCap } from './spendCap.ts';

export type Planner = (ctx: PlanContext, route: DataRoute, query: Readonly<Record<string, unknown>>) => Promise<QueryPlan>;

/** The planner of a route. The cost estimate uses it too, so the estimate and the charge cannot disagree. */
export function plannerFor(route: DataRoute): Planner {
  const plan: Planner = route.kind === 'aggregate' ? planAggregate : route.endpoint.family === 'exchange' ? planVenue : planRaw;
  return async (ctx, r, query) => {
    if (query.link === true) assertLinkFormat(r, query);
    const p = await plan(ctx, r, query);
    // The spend cap is judged on the planned cost, before anything is held or run.
    assertWithinSpendCap(p.cost.cost, query.max_cost);
    return p;
  };
}

/** link=true only makes sense for a file: inline formats are a 400 (docs/venues-tron-btc.md, "Link mode"). */
function assertLinkFormat(route: DataRoute, query: Readonly<Record<string, unknown>>): void {
  const format = String(query.format ?? route.endpoint.defaultFormat)
    .trim()
    .toLowerCase();
  const known = route.endpoint.formats.find((f) => f === format);
  // An unknown format is the format parameter's own error, answered by the planner.
  if (!known || isLinkFormat(known)) return;
  const files = route.endpoint.formats
    .filter(isLinkFormat)
    .map((f) => `format=${f}`)
    .join(' or ');
  throw new ApiError('conflicting_parameters', `link=true needs ${files}; ${query.format === undefined ? `the default format here is ${known}, which` : known} is only answered inline`, {
    parameters: ['link', 'format'],
  });
}
