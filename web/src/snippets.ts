/**
 * The current query as code: curl, TypeScript with chainq/client (method
 * names as src/client/generate.ts derives them from the dataset id), and
 * Python with the chainq client (clients/python).
 */
import type { Route } from './catalog.ts';
import type { Values } from './query.ts';

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

export function clientMethod(route: Route): string {
  const p = pascal(route.dataset);
  return p[0]!.toLowerCase() + p.slice(1) + (route.kind === 'aggregate' ? 'Aggregate' : '');
}

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

export function curlSnippet(origin: string, target: string): string {
  return `curl -H "X-API-Key: $CHAINQ_KEY" ${shellQuote(origin + target)}`;
}

function tsValue(route: Route, name: string, text: string): string {
  const p = route.params.find((x) => x.name === name);
  if ((p?.type === 'integer' || p?.type === 'number') && text.trim() !== '' && Number.isFinite(Number(text))) return String(Number(text));
  if (p?.type === 'boolean' && (text === 'true' || text === 'false')) return text;
  return JSON.stringify(text).replaceAll('"', "'");
}

export function typescriptSnippet(origin: string, route: Route, values: Values): string {
  const entries = route.params.filter((p) => p.name !== 'link' && (values[p.name] ?? '').trim() !== '').map((p) => `${p.name}: ${tsValue(route, p.name, values[p.name]!.trim())}`);
  const format = (values.format ?? '').trim() || route.defaultFormat;
  const read = format === 'json' ? `const { events, count } = await query.json();\nconsole.log(count, events[0]);` : `await query.toFile('result.${format}');`;
  return [
    `import { createClient } from 'chainq/client';`,
    ``,
    `const cq = createClient({ baseUrl: '${origin}', apiKey: process.env.CHAINQ_KEY! });`,
    `const query = cq.${clientMethod(route)}({ ${entries.join(', ')} });`,
    `console.log((await query.cost()).cost); // priced, not charged`,
    read,
  ].join('\n');
}

// Python's reserved words: a parameter named like one (a custom dataset's `from`)
// cannot be a keyword argument, so it goes through `**{…}`.
const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

function pyValue(route: Route, name: string, text: string): string {
  const p = route.params.find((x) => x.name === name);
  if ((p?.type === 'integer' || p?.type === 'number') && text !== '' && Number.isFinite(Number(text))) return String(Number(text));
  if (p?.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true' ? 'True' : 'False';
  return JSON.stringify(text);
}

/** Python with the chainq client (clients/python): the query's own parameters as keyword arguments, a pandas DataFrame back. */
export function pythonSnippet(origin: string, route: Route, values: Values): string {
  // The client picks the wire format (Parquet where offered) and reads the rows itself.
  const given = route.params.filter((p) => p.name !== 'format' && p.name !== 'link' && (values[p.name] ?? '').trim() !== '');
  const plain = given.filter((p) => /^[A-Za-z_]\w*$/.test(p.name) && !PY_KEYWORDS.has(p.name));
  const other = given.filter((p) => !plain.includes(p));
  const args = [
    JSON.stringify(route.dataset),
    ...plain.map((p) => `${p.name}=${pyValue(route, p.name, values[p.name]!.trim())}`),
    ...(other.length ? [`**{${other.map((p) => `${JSON.stringify(p.name)}: ${pyValue(route, p.name, values[p.name]!.trim())}`).join(', ')}}`] : []),
  ];
  return [
    `import os`,
    `import chainq  # pip install chainq-client (clients/python in the chainq repository)`,
    ``,
    `c = chainq.Client(${JSON.stringify(origin)}, api_key=os.environ["CHAINQ_KEY"])`,
    `print(c.cost(${[...args, ...(route.kind === 'aggregate' ? ['aggregate=True'] : [])].join(', ')}))  # priced, not charged`,
    `df = c.${route.kind === 'aggregate' ? 'aggregate' : 'events'}(${args.join(', ')})`,
    `print(df.head())`,
  ].join('\n');
}
