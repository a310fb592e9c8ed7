/**
 * A route's query-string validator, compiled by this server's own validator
 * compiler from the catalog's schema: what Fastify runs on a route declared
 * with that schema. Routes resolved per request (custom datasets, the cost
 * calculator's embedded query) validate through it, so that the same query
 * gets the same answer whichever way it arrives.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import { querySchema } from '../../catalog/derive/jsonSchema.ts';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { validationToApiError } from '../errorHandler.ts';

/** Fastify's compiled validator; the catalog's schemas are synchronous, so it answers true or false. */
type Validate = FastifyValidationResult;

/** Compiled validators per server and route (a custom dataset declared again gets new route objects). */
const compiled = new WeakMap<FastifyInstance, WeakMap<DataRoute, Validate>>();

/**
 * Validates and coerces `query` (a fresh object: validation converts its
 * values in place) for `route`, or throws the 400 the route would answer.
 */
export function validateQuery(server: FastifyInstance, route: DataRoute, query: Record<string, unknown>): void {
  let cache = compiled.get(server);
  if (!cache) {
    cache = new WeakMap();
    compiled.set(server, cache);
  }
  let validate = cache.get(route);
  if (!validate) {
    const compile = server.validatorCompiler;
    if (!compile) throw new Error('no validator compiler: the data routes must be registered in this scope');
    validate = compile({ schema: querySchema(route.params), method: 'GET', url: route.path, httpPart: 'querystring' });
    cache.set(route, validate);
  }
  if (validate(query) === false) throw validationToApiError(validate.errors ?? [], Object.keys(route.params), route.params);
}
