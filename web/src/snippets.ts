/**
 * The current query as code: curl, TypeScript with chainq/client (method
 * names as src/client/generate.ts derives them from the dataset id), and
 * Python reading the CSV or Parquet URL with the key header.
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

/** Python reading the file format chosen in the form, else Parquet where offered, else CSV. */
export function pythonSnippet(origin: string, target: string, route: Route, chosen = ''): string {
  const wanted = chosen.trim().toLowerCase();
  const file = wanted === 'csv' || wanted === 'parquet' ? wanted : route.formats.includes('parquet') ? 'parquet' : 'csv';
  const url = new URL(origin + target);
  url.searchParams.set('format', file);
  url.searchParams.delete('link');
  const u = url.toString();
  if (file === 'parquet') {
    return [
      `import io, os, urllib.request`,
      `import pyarrow.parquet as pq`,
      ``,
      `req = urllib.request.Request(${JSON.stringify(u)}, headers={"X-API-Key": os.environ["CHAINQ_KEY"]})`,
      `table = pq.read_table(io.BytesIO(urllib.request.urlopen(req).read()))`,
      `df = table.to_pandas()`,
      `print(df.head())`,
    ].join('\n');
  }
  return [`import os`, `import pandas as pd`, ``, `df = pd.read_csv(${JSON.stringify(u)}, storage_options={"X-API-Key": os.environ["CHAINQ_KEY"]})`, `print(df.head())`].join('\n');
}
