/**
 * The routes of the service, derived from the catalog: one raw route per
 * endpoint and one aggregate route per aggregatable chain endpoint, each with
 * its complete parameter set.
 */
import { chainRangeParams } from '../common.ts';
import { catalog } from '../index.ts';
import { linkParams, venueFormatParams } from '../link.ts';
import type { ChainEndpoint, Endpoint, Params } from '../types.ts';

export type RouteKind = 'raw' | 'aggregate';

export interface DataRoute {
  readonly kind: RouteKind;
  readonly path: string;
  readonly endpoint: Endpoint;
  readonly params: Params;
}

/** Which route kinds are implemented end to end; a route is exposed only once it works. */
export const SERVED_KINDS: Readonly<Record<RouteKind, boolean>> = { raw: true, aggregate: false };

export function familyParams(e: Endpoint): Params {
  if (e.family === 'exchange') return { ...venueFormatParams(e), ...linkParams(e) };
  return { ...chainRangeParams(e.family === 'evm' ? e.networks : null), ...linkParams(e) };
}

export function aggregateParams(e: ChainEndpoint): Params {
  return {
    group_by: { type: 'string', required: e.family === 'evm', enum: ['time', 'block_number'], ...(e.family === 'evm' ? {} : { default: 'time' }), description: 'Bucket by time or by block number.' },
    period: { type: 'string', required: e.family === 'evm', description: 'Bucket size: 1m, 5m, 2h, 1d, 1w… for time; a block count such as 10000 for blocks.' },
    with_value: { type: 'boolean', default: false, description: 'Add agg_value_usd, the USD value of each bucket.' },
  };
}

export function dataRoutes(entries: readonly Endpoint[] = catalog): DataRoute[] {
  const routes: DataRoute[] = [];
  for (const e of entries) {
    if (!e.served) continue;
    if (SERVED_KINDS.raw) routes.push({ kind: 'raw', path: e.path, endpoint: e, params: { ...familyParams(e), ...e.params } });
    if (SERVED_KINDS.aggregate && e.family !== 'exchange' && e.aggregate) {
      routes.push({ kind: 'aggregate', path: `${e.path}/aggregate`, endpoint: e, params: { ...familyParams(e), ...e.params, ...aggregateParams(e) } });
    }
  }
  return routes;
}
