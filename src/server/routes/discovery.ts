/** The discovery endpoints (docs/api.md, "Discovery"): one GET per route that src/catalog/derive/discovery.ts lists, all derived from the catalog. */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { aggregateSchemaOf, discoveryRoutes, eventTypesOf, extraArgsOf, networksOf, protocols, type DiscoveryRoute } from '../../catalog/derive/discovery.ts';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import { catalog } from '../../catalog/index.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { coverageReport } from '../../query/coverageReport.ts';
import { normalizeQuery } from '../../query/normalize.ts';
import type { Store } from '../../store/types.ts';
import { tokenDirectory } from '../../store/registry.ts';

/** A parsed query string as a record of its parameters. */
function queryRecord(query: unknown): Readonly<Record<string, unknown>> {
  return typeof query === 'object' && query !== null ? Object.fromEntries(Object.entries(query)) : {};
}

export function registerDiscovery(app: FastifyInstance, store: Store, entries: readonly Endpoint[] = catalog): void {
  const handler = (r: DiscoveryRoute): RouteHandlerMethod => {
    switch (r.kind) {
      case 'protocols':
        return async () => protocols(entries);
      case 'coverage': {
        const params = r.params;
        return async (request) => {
          const q = normalizeQuery(params, queryRecord(request.query));
          const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
          return { coverage: await coverageReport(store, { family: text(q.family), protocol: text(q.protocol), network: text(q.network) }, entries) };
        };
      }
      case 'tokens':
        return async () => {
          const rows = await tokenDirectory(store);
          return rows.map((t) => ({
            symbol: t.symbol,
            name: t.name,
            aliases: t.aliases,
            networks: Object.fromEntries(t.deployments.map((d) => [d.network, { address: d.address || null, decimals: Number(d.decimals) }])),
          }));
        };
      case 'networks': {
        const eps = r.endpoints;
        return async () => networksOf(eps);
      }
      case 'event_types': {
        const eps = r.endpoints;
        return async () => eventTypesOf(eps);
      }
      case 'extra_args': {
        const eps = r.endpoints;
        return async () => extraArgsOf(eps);
      }
      case 'aggregate_schema': {
        const eps = r.endpoints;
        return async () => aggregateSchemaOf(eps);
      }
    }
  };

  for (const r of discoveryRoutes(entries)) {
    // Free like the other discovery calls: what can be queried, before spending quota.
    // Coverage and tokens are read from the store; the other listings come from the catalog alone.
    if (r.kind === 'coverage') app.get(r.path, { schema: { querystring: querySchema(r.params) }, config: { catalogParams: r.params, engine: true } }, handler(r));
    else app.get(r.path, { config: { engine: r.kind === 'tokens' } }, handler(r));
  }
}
