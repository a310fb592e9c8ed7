/**
 * A query as the form holds it (route + parameter texts) and as an address:
 * `/v1/...?a=b`, the text that `?q=` carries, curl sends and calculate-cost prices.
 */
import type { Catalog, Route } from './catalog.ts';

export type Values = Readonly<Record<string, string>>;

export interface QueryState {
  readonly route: Route;
  readonly values: Values;
}

/** The API path and query string: only parameters with a value, in the route's parameter order. */
export function toTarget(q: QueryState, extra: Values = {}): string {
  const search = new URLSearchParams();
  const merged: Record<string, string> = { ...q.values, ...extra };
  const names = [...q.route.params.map((p) => p.name), ...Object.keys(extra).filter((n) => !q.route.params.some((p) => p.name === n))];
  for (const name of names) {
    const v = merged[name]?.trim();
    if (v) search.set(name, v);
  }
  const s = search.toString();
  return s ? `${q.route.path}?${s}` : q.route.path;
}

/** Reads a shared `?q=` target back into a route and values; null when the path is not a data route of this server. */
export function fromTarget(catalog: Catalog, target: string): QueryState | null {
  let url: URL;
  try {
    url = new URL(target, 'http://explorer.invalid');
  } catch {
    return null;
  }
  const path = url.pathname.replace(/\/$/, '');
  const route = catalog.routes.find((r) => r.path === path);
  if (!route) return null;
  const values: Record<string, string> = {};
  for (const [k, v] of url.searchParams) values[k] = v;
  return { route, values };
}

/** The explorer's own address for a query: /explore?q=<url-encoded target>. */
export function shareUrl(origin: string, target: string): string {
  return `${origin}/explore?q=${encodeURIComponent(target)}`;
}

/** Which filled parameters exclude `name` (mutually exclusive parameters). */
export function excludedBy(route: Route, values: Values, name: string): string[] {
  const filled = (n: string) => (values[n] ?? '').trim() !== '';
  const out = new Set<string>();
  for (const p of route.params) {
    if (!filled(p.name) || p.name === name) continue;
    if (p.exclusiveWith.includes(name)) out.add(p.name);
  }
  const self = route.params.find((p) => p.name === name);
  for (const other of self?.exclusiveWith ?? []) if (filled(other)) out.add(other);
  // A range is blocks or times, never both.
  const blocks = ['block_start', 'block_end'];
  const times = ['since', 'until'];
  if (blocks.includes(name)) for (const t of times) if (filled(t)) out.add(t);
  if (times.includes(name)) for (const b of blocks) if (filled(b)) out.add(b);
  return [...out];
}
