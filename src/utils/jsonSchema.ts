/**
 * Parsing, not casting, at the edges: every JSON document or message the
 * program reads from outside (config files, declarations, job descriptions,
 * operator messages, node answers) goes through a JSON Schema compiled here,
 * and comes out typed, or as an error naming the field (`jobs[2].every: must
 * be >0`).
 */
import { Ajv, type ErrorObject, type Schema, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: false, strict: false });

/** A compiled schema: a value it accepts is a T; `errors` says why the last value was refused. */
export interface Validator<T> {
  (value: unknown): value is T;
  readonly errors?: ErrorObject[] | null;
}

/**
 * The schema as the description of T; the schema is the single place T's
 * shape is checked at run time. Compiled on first use: modules declare their
 * schemas when they load, and a command that never reads such a document
 * (the server reads few) should not hold their generated code.
 */
export function compileSchema<T>(schema: Schema): Validator<T> {
  let compiled: ValidateFunction<T> | undefined;
  const validate = (value: unknown): value is T => {
    compiled ??= ajv.compile<T>(schema);
    return compiled(value);
  };
  Object.defineProperty(validate, 'errors', { get: () => compiled?.errors });
  return validate;
}

/** `where` followed by the path of the bad value: `jobs[2]` and `/rpc/0` → `jobs[2].rpc[0]`. */
export function fieldPath(where: string, instancePath: string): string {
  return `${where}${instancePath.replaceAll('/', '.').replace(/\.(\d+)/g, '[$1]')}`;
}

/** One schema error as `field: what is wrong`, naming the missing or unknown property itself. */
export function describeSchemaError(where: string, e: ErrorObject): string {
  const field = fieldPath(where, e.instancePath);
  if (e.keyword === 'additionalProperties') return `${field}.${String(e.params.additionalProperty)}: unknown field`;
  if (e.keyword === 'required') return `${field}.${String(e.params.missingProperty)}: required`;
  if (e.keyword === 'const' || e.keyword === 'enum') return `${field}: must be one of ${JSON.stringify(e.params.allowedValue ?? e.params.allowedValues)}`;
  return `${field}: ${e.message ?? 'invalid'}`;
}

/**
 * `value` as a T, or the error `failure` makes of the first schema error
 * (described by describeSchemaError unless `failure` words it itself).
 */
export function parseWith<T>(validate: Validator<T>, value: unknown, failure: (first: ErrorObject | undefined) => Error): T {
  if (validate(value)) return value;
  throw failure(validate.errors?.[0]);
}
