/** The discovery endpoints (docs/api.md, "Discovery"), all derived from the catalog. */
import type { FastifyInstance } from 'fastify';
import {
  aggregateSchemaOf, eventTypesOf, extraArgsOf, networksOf, protocolEndpoints, protocols,
} from '../../catalog/derive/discovery.ts';
import { COVERAGE_PARAMS, COVERAGE_PATH } from '../../catalog/coverage.ts';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import { catalog } from '../../catalog/index.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { coverageReport } from '../../query/coverageReport.ts';
import { normalizeQuery } from '../../query/normalize.ts';
import type { Store } from '../../store/createStore.ts';
import { tokenDirectory } from '../../store/registry.ts';

export function registerDiscovery(app: FastifyInstance, store: Store, entries: readonly Endpoint[] = catalog): void {
  app.get('/v1/protocols', async () => protocols(entries));

  // Free like the other discovery calls: what can be queried, before spending quota.
  app.get(COVERAGE_PATH, { schema: { querystring: querySchema(COVERAGE_PARAMS) }, config: { catalogParams: COVERAGE_PARAMS } }, async (request) => {
    const q = normalizeQuery(COVERAGE_PARAMS, request.query as Record<string, unknown>);
    const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    return { coverage: await coverageReport(store, { family: text(q.family), protocol: text(q.protocol), network: text(q.network) }, entries) };
  });

  app.get('/v1/tokens', async () => {
    const rows = await tokenDirectory(store);
    return rows.map((r) => ({
      symbol: r.symbol,
      name: r.name,
      aliases: r.aliases,
      networks: Object.fromEntries(r.deployments.map((d) => [d.network, { address: d.address || null, decimals: Number(d.decimals) }])),
    }));
  });

  for (const id of protocols(entries)) {
    const [family, protocol] = id.split('/') as [string, string];
    const eps = protocolEndpoints(family, protocol, entries);
    const base = `/v1/${family}/${protocol}`;
    if (family === 'evm') {
      app.get(`${base}/networks`, async () => networksOf(eps));
      app.get(`${base}/events/types`, async () => eventTypesOf(eps));
      app.get(`${base}/extra_args`, async () => extraArgsOf(eps));
    }
    app.get(`${base}/aggregate_schema`, async () => aggregateSchemaOf(eps));
  }
}
