import { Ajv, type Options } from 'ajv';
import { describe, expect, it } from 'vitest';
import { usageEndpoint } from '../catalog/account.ts';
import { discoveryRoutes } from '../catalog/derive/discovery.ts';
import { querySchema } from '../catalog/derive/jsonSchema.ts';
import { dataRoutes, streamRoutes } from '../catalog/derive/routes.ts';
import { lazyValidatorCompiler } from './lazyValidators.ts';

const schema = { type: 'object', additionalProperties: false, required: ['n'], properties: { n: { type: 'integer', minimum: 1 }, s: { type: 'string' } } };
const options = { coerceTypes: true, removeAdditional: false, useDefaults: false, allErrors: false } as const;

describe('lazyValidatorCompiler', () => {
  it('compiles nothing for a route until its first request, so a schema Ajv refuses fails only then', () => {
    const compile = lazyValidatorCompiler(options);
    const validate = compile({ schema: { type: 'object', properties: { n: { type: 'no-such-type' } } }, method: 'GET', url: '/x' });
    expect(() => validate({})).toThrow(/no-such-type|type/);
  });

  it('accepts, coerces and refuses as Ajv compiling the same schema eagerly with Fastify’s defaults under the same options', () => {
    const fastifyDefaults: Options = { coerceTypes: 'array', useDefaults: true, removeAdditional: true, addUsedSchema: false };
    const eager = new Ajv({ ...fastifyDefaults, ...options }).compile(schema);
    const validate = lazyValidatorCompiler(options)({ schema, method: 'GET', url: '/x', httpPart: 'querystring' });
    for (const input of [{ n: '3' }, { n: '0' }, { n: 'x' }, {}, { n: '2', extra: '1' }, { n: ['2', '3'] }, { n: '2', s: 5 }]) {
      const a = structuredClone(input);
      const b = structuredClone(input);
      expect(validate(a), JSON.stringify(input)).toBe(eager(b));
      expect(a).toEqual(b);
      expect(validate.errors ?? null).toEqual(eager.errors ?? null);
    }
  });

  it('is given only schemas JSON Schema’s meta-schema accepts: every query schema the catalog gives a route (the server compiles them unchecked)', () => {
    const ajv = new Ajv();
    const paramSets = [
      ...dataRoutes().map((r) => [r.path, r.params] as const),
      ...streamRoutes().map((r) => [r.path, r.params] as const),
      ...discoveryRoutes().flatMap((r) => (r.kind === 'coverage' ? [[r.path, r.params] as const] : [])),
      [usageEndpoint.path, usageEndpoint.params] as const,
    ];
    expect(paramSets.length).toBeGreaterThan(50);
    for (const [path, params] of paramSets) expect(ajv.validateSchema(querySchema(params)), `${path}: ${ajv.errorsText()}`).toBe(true);
    // And the check can fail: a schema with a type JSON Schema does not have.
    expect(ajv.validateSchema({ type: 'object', properties: { n: { type: 'no-such-type' } } })).toBe(false);
  });
});
