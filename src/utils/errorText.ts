/**
 * What a caught value says, without casting it: a `catch` clause holds
 * `unknown`, and a library may throw anything.
 */

/** The message of an Error, or the thrown value as text. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A system error's code (`ENOENT`, `ECONNREFUSED`…), when the value carries one. */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('code' in e)) return undefined;
  return typeof e.code === 'string' ? e.code : undefined;
}

/** The HTTP status an error carries (`statusCode`, as Fastify's and HTTP clients' errors do), when it carries one. */
export function statusCodeOf(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null || !('statusCode' in e)) return undefined;
  return typeof e.statusCode === 'number' ? e.statusCode : undefined;
}
