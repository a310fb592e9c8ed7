/**
 * Route validators compiled on a route's first request instead of when the
 * server gets ready. Fastify compiles every route's schema at ready: about
 * 120 catalog routes, whose generated code and the compiler's scratch memory
 * stayed in the idle server's resident set (about 12 MiB of a 120 MiB
 * budget), while a deployment calls a few of them. The Ajv options are those
 * Fastify's own compiler would use with the server's `customOptions`; the
 * query schemas use no `format`, so its formats plugin is not needed.
 */
import { Ajv, type AnySchema, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

type Validate = ReturnType<FastifySchemaCompiler<AnySchema>>;

/** What Fastify's compiler sets beneath the options a server gives it. */
const FASTIFY_DEFAULTS: Options = { coerceTypes: 'array', useDefaults: true, removeAdditional: true, addUsedSchema: false, allErrors: false };

/**
 * The schemas are the catalog's own, each checked against JSON Schema's
 * meta-schema by src/server/lazyValidators.test.ts; checking them again in
 * every server compiles the meta-schema on its first request, 20–40 ms of a
 * fresh server's first answer (an export's POST among them).
 */
const TRUSTED_SCHEMAS: Options = { validateSchema: false };

export function lazyValidatorCompiler(customOptions: Options): FastifySchemaCompiler<AnySchema> {
  let ajv: Ajv | undefined;
  const ajvOf = (): Ajv => {
    ajv ??= new Ajv({ ...FASTIFY_DEFAULTS, ...customOptions, ...TRUSTED_SCHEMAS });
    return ajv;
  };
  return ({ schema }) => {
    let compiled: ValidateFunction | undefined;
    const validate: Validate = (data: unknown) => {
      compiled ??= ajvOf().compile(schema);
      return compiled(data);
    };
    // Fastify reads the errors off the function after a refusal, as it does Ajv's.
    Object.defineProperty(validate, 'errors', { get: () => compiled?.errors });
    return validate;
  };
}
