/**
 * Names for the values an aggregate's inner query computes once per row,
 * shared by both renderers: a pivot's key and value expressions may be used
 * by several pivot columns, and each is selected once under one alias.
 */
import type { Expr } from './query.ts';

/**
 * Returns `alias(prefix, e)`: the alias of `e` rendered by `render`, adding
 * `<sql> AS __<prefix><n>` to `inner` the first time an expression is seen.
 */
export function innerAliases(render: (e: Expr) => string, inner: string[]): (prefix: string, e: Expr) => string {
  const seen = new Map<string, string>();
  const counts = new Map<string, number>();
  return (prefix, e) => {
    const sql = render(e);
    const key = `${prefix}:${sql}`;
    let a = seen.get(key);
    if (!a) {
      const n = counts.get(prefix) ?? 0;
      counts.set(prefix, n + 1);
      a = `__${prefix}${n}`;
      seen.set(key, a);
      inner.push(`${sql} AS ${a}`);
    }
    return a;
  };
}
