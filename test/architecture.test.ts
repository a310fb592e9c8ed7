/**
 * Imports flow one way (architecture.md §2.11): the server uses query, query
 * uses store, nothing reaches back up. Only store/ talks to DuckDB and only
 * server/ to Fastify.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const COMMON = ['errors', 'utils', 'internal'];
/** Which top-level folders each folder may import from (besides itself and COMMON). */
const ALLOWED: Record<string, string[]> = {
  catalog: [],
  store: ['catalog'],
  reference: ['store', 'catalog'],
  query: ['store', 'catalog', 'reference'],
  ingest: ['store', 'catalog', 'reference', 'query'],
  output: ['catalog'],
  metering: ['store', 'catalog', 'query'],
  demo: ['store', 'catalog', 'reference', 'ingest'],
  client: ['catalog', 'errors'],
  // Operator actions and ingestion jobs, run by the CLI or inside a server.
  operator: ['catalog', 'store', 'query', 'metering', 'reference', 'ingest', 'demo'],
  server: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'ingest', 'operator'],
  cli: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'ingest', 'demo', 'server', 'operator'],
  errors: [],
  utils: [],
  internal: [],
};

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

const imports = (file: string) => [...fs.readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

describe('architecture', () => {
  const all = files(SRC);

  it('keeps imports flowing one way between layers', () => {
    const violations: string[] = [];
    for (const file of all) {
      const layer = path.relative(SRC, file).split(path.sep)[0]!;
      if (!(layer in ALLOWED) && !file.endsWith('.ts')) continue;
      const allowed = new Set([layer, ...COMMON, ...(ALLOWED[layer] ?? [])]);
      for (const spec of imports(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0]!;
        if (!allowed.has(target)) violations.push(`${path.relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('lets only store/ import DuckDB and only server/ import Fastify', () => {
    const offenders = all.flatMap((file) => {
      const rel = path.relative(SRC, file);
      return imports(file)
        .filter((s) => (s.startsWith('@duckdb/') && !rel.startsWith('store')) || (/^(fastify|@fastify\/)/.test(s) && !rel.startsWith('server')))
        .map((s) => `${rel} imports ${s}`);
    });
    expect(offenders).toEqual([]);
  });
});
