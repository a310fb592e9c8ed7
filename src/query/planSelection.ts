/**
 * A validated request → what it selects: endpoint, network, range, format,
 * and the bound WHERE conditions. Raw and aggregate plans both start here.
 */
import type { DataRoute } from '../catalog/derive/routes.ts';
import type { ChainEndpoint, Format } from '../catalog/types.ts';
import type { Store } from '../store/createStore.ts';
import { normalizeQuery, type QueryValues } from './normalize.ts';
import { checkRangeLimit, parseRange, type QueryRange } from './range.ts';
import { SqlBuilder, ident } from './sql/builder.ts';
import { buildFilters } from './sql/filters.ts';
import { toSqlTimestamp } from './time.ts';

export interface Selection {
  readonly endpoint: ChainEndpoint;
  readonly network: string;
  readonly range: QueryRange;
  readonly format: Format;
  readonly values: QueryValues;
  readonly q: SqlBuilder;
  readonly where: readonly string[];
  /** How many tokens the token filter selects; 0 without one. */
  readonly tokenCount: number;
  /** Tokens dropped as unknown under `ignore_unknown_tokens=true`. */
  readonly droppedTokens: readonly string[];
  /** SQL of an output column by name, under this request. */
  columnSql(name: string): string;
}

export async function planSelection(store: Store, route: DataRoute, raw: Readonly<Record<string, unknown>>, keyId?: string): Promise<Selection> {
  const endpoint = route.endpoint;
  if (endpoint.family === 'exchange') throw new Error('planSelection serves chain endpoints');
  const values = normalizeQuery(route.params, raw);
  // normalizeQuery has checked `network` against the endpoint's networks (the
  // parameter's enum); single-network families (Tron, Bitcoin) take no network.
  const network = typeof values.network === 'string' ? values.network : endpoint.networks[0]!;
  const format = (values.format ?? endpoint.defaultFormat) as Format;
  const range = parseRange({
    block_start: values.block_start as number | undefined,
    block_end: values.block_end as number | undefined,
    since: values.since as string | undefined,
    until: values.until as string | undefined,
  });
  checkRangeLimit(range, format, network);

  const q = new SqlBuilder();
  const where = [`t.network = ${q.bind(network)}`];
  if (range.kind === 'blocks') where.push(`t.block_number BETWEEN ${q.bind(range.start)} AND ${q.bind(range.end)}`);
  else where.push(`t.time >= CAST(${q.bind(toSqlTimestamp(range.since))} AS TIMESTAMP) AND t.time < CAST(${q.bind(toSqlTimestamp(range.until))} AS TIMESTAMP)`);
  const filters = await buildFilters(store, endpoint, network, values, q, keyId);
  where.push(...filters.where);

  const all = [...endpoint.columns, ...endpoint.verboseColumns];
  const columnSql = (name: string): string => {
    const override = filters.overrides[name];
    if (override) return override;
    const col = all.find((c) => c.name === name);
    if (col?.sql) return col.sql;
    return `t.${ident(name)}`;
  };
  return { endpoint, network, range, format, values, q, where, tokenCount: filters.tokenCount, droppedTokens: filters.droppedTokens, columnSql };
}
