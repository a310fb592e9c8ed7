/** Which planner answers a data route, with the checks every plan passes before anything is held or run. */
import type { DataRoute } from '../catalog/derive/routes.ts';
import { planAggregate } from './planAggregate.ts';
import { planRaw, type PlanContext, type QueryPlan } from './planRaw.ts';
import { planVenue } from './planVenue.ts';
import { assertWithinSpendCap } from './spendCap.ts';

export type Planner = (ctx: PlanContext, route: DataRoute, query: Readonly<Record<string, unknown>>) => Promise<QueryPlan>;

/** The planner of a route. The cost estimate uses it too, so the estimate and the charge cannot disagree. */
export function plannerFor(route: DataRoute): Planner {
  const plan: Planner = route.kind === 'aggregate' ? planAggregate : route.endpoint.family === 'exchange' ? planVenue : planRaw;
  return async (ctx, r, query) => {
    const p = await plan(ctx, r, query);
    // The spend cap is judged on the planned cost, before anything is held or run.
    assertWithinSpendCap(p.cost.cost, query.max_cost);
    return p;
  };
}

