/**
 * Parsing, not casting, at the edges: every JSON document or message the
 * program reads from outside (config files, declarations, job descriptions,
 * operator messages, node answers) goes through a JSON Schema compiled here,
 * and comes out typed, or as an error naming the field (`jobs[2].every: must
 * be >0`).
 */
import { Ajv, type ErrorObject, type Schema, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: false, strict: false });

/** A compiled schema: a value it accepts is a T. */
export type Validator<T> = ValidateFunction<T>;

/** Compiles `schema` as the description of T; the schema is the single place T's shape is checked at run time. */
export function compileSchema<T>(schema: Schema): Validator<T> {
  return ajv.compile<T>(schema);
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
