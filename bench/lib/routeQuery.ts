/**
 * A request's query string as the server's validator hands it to the planner:
 * each value coerced to its parameter's type by the route's own schema (Ajv
 * with the options the server's routes use, src/server/createApp.ts). The
 * planners read typed values (a block number is a number), so the prepare
 * scripts that plan a URL without a server must coerce it the same way.
 */
import { Ajv } from 'ajv';
import { querySchema } from '../../src/catalog/derive/jsonSchema.ts';
import type { DataRoute } from '../../src/catalog/derive/routes.ts';

const ajv = new Ajv({ coerceTypes: true, removeAdditional: false, useDefaults: false, allErrors: false, addUsedSchema: false });

export function routeQuery(route: DataRoute, url: string): Record<string, unknown> {
  const query: Record<string, unknown> = Object.fromEntries(new URL(`http://x${url}`).searchParams);
  const validate = ajv.compile(querySchema(route.params));
  if (!validate(query)) throw new Error(`${url}: ${ajv.errorsText(validate.errors)}`);
  return query;
}
