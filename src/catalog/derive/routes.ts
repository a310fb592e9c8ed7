/**
 * The routes of the service, derived from the catalog: one raw route per
 * endpoint and one aggregate route per aggregatable chain endpoint, each with
 * its complete parameter set.
 */
import { chainRangeParams } from '../common.ts';
import { catalog } from '../index.ts';
import { linkParams, venueFormatParams } from '../link.ts';
import { walletNamespaceParams } from '../labelNamespace.ts';
import { maxCostParams } from '../spendCap.ts';
import type { ChainEndpoint, Endpoint, Params } from '../types.ts';
import { DEFAULT_PERIODS, GROUP_BY_VALUES, LISTED_TIME_PERIODS, acceptsWithValue } from './aggregate.ts';

export type RouteKind = 'raw' | 'aggregate';

export interface DataRoute {
  readonly kind: RouteKind;
  readonly path: string;
  readonly endpoint: Endpoint;
  readonly params: Params;
}

export function familyParams(e: Endpoint): Params {
  if (e.family === 'exchange') return { ...venueFormatParams(e), ...linkParams(e), ...maxCostParams };
  return { ...chainRangeParams(e.family === 'evm' ? e.networks : null), ...linkParams(e), ...maxCostParams };
}

const withValueParam = (description: string): Params => ({ with_value: { type: 'boolean', default: false, description } });

/** `with_value` on a raw chain route, where the catalog says how a row is priced. */
export function rawValueParams(e: Endpoint): Params {
  if (e.family === 'exchange' || !(e.pricedAmount || e.pricedLegs)) return {};
  return withValueParam('Add value_usd: the amount times the USD price at the minute of the event; null when no price is known.');
}

export function aggregateParams(e: ChainEndpoint): Params {
  const evm = e.family === 'evm';
  return {
    group_by: {
      type: 'string',
      required: evm,
      enum: GROUP_BY_VALUES,
      ...(evm ? {} : { default: 'time' }),
      description: evm ? 'Bucket by time or by block number.' : 'Bucket by time (default) or by block number.',
    },
    period: evm
      ? {
          type: 'string',
          required: true,
          description: 'Bucket size: <n>m, <n>h, <n>d or <n>w for time (1m upwards; buckets align to the Unix epoch in UTC, weeks start on Monday); a positive block count such as 10000 for blocks.',
        }
      : {
          type: 'string',
          description: `Bucket size: one of ${LISTED_TIME_PERIODS.join(', ')} for time (default ${DEFAULT_PERIODS.time}); a positive block count for blocks (default ${DEFAULT_PERIODS.block_number}).`,
        },
    ...(acceptsWithValue(e) ? withValueParam('Add agg_value_usd, the USD value of each bucket, for event types that support it.') : {}),
  };
}

/** Raw-row presentation options that mean nothing for buckets. */
const ROW_OPTIONS = new Set(['verbose', 'with_time']);

export function dataRoutes(entries: readonly Endpoint[] = catalog): DataRoute[] {
  const routes: DataRoute[] = [];
  for (const e of entries) {
    if (!e.served) continue;
    const pull = e.family === 'exchange' ? {} : cursorParam;
    routes.push({ kind: 'raw', path: e.path, endpoint: e, params: { ...familyParams(e), ...pull, ...e.params, ...walletNamespaceParams(e), ...rawValueParams(e) } });
    if (e.family !== 'exchange' && e.aggregate) {
      const family = Object.fromEntries(Object.entries(familyParams(e)).filter(([name]) => !ROW_OPTIONS.has(name)));
      routes.push({ kind: 'aggregate', path: `${e.path}/aggregate`, endpoint: e, params: { ...family, ...e.params, ...walletNamespaceParams(e), ...aggregateParams(e) } });
    }
  }
  return routes;
}

/** The start of a stream or a pull given as a position: a cursor that an earlier answer handed out. */
export const cursorParam: Params = {
  cursor: {
    type: 'string',
    exclusiveWith: ['block_start', 'since'],
    description: 'Continue right after this cursor (from X-Chainq-Next-Cursor or a stream event id) instead of a start.',
  },
};

export const FINALITIES = ['latest', 'final'] as const;
export type Finality = (typeof FINALITIES)[number];

/** What a stream adds to its raw endpoint's parameters. */
export const streamParams: Params = {
  ...cursorParam,
  finality: {
    type: 'string',
    case: 'lower',
    enum: FINALITIES,
    default: 'latest',
    description: 'latest: deliver what the store commits, with undo events on a rollback; final: only blocks past the network finality depth, never undone.',
  },
};

/** Parameters of a raw route that mean nothing to a stream: it always answers JSON rows inline. */
const NOT_STREAMED = new Set(['format', 'link']);

/** A live stream of a raw chain event endpoint: its raw route's path plus `/stream`. */
export interface StreamRoute {
  readonly path: string;
  /** The raw route it streams, whose planner answers each batch. */
  readonly raw: DataRoute;
  readonly params: Params;
}

/** The stream of a raw chain route. */
export function streamRouteOf(raw: DataRoute): StreamRoute {
  return {
    path: `${raw.path}/stream`,
    raw,
    params: { ...Object.fromEntries(Object.entries(raw.params).filter(([name]) => !NOT_STREAMED.has(name))), ...streamParams },
  };
}

export function streamRoutes(entries: readonly Endpoint[] = catalog): StreamRoute[] {
  return dataRoutes(entries)
    .filter((r) => r.kind === 'raw' && r.endpoint.family !== 'exchange')
    .map(streamRouteOf);
}
