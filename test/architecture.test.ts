/**
 * Imports flow one way (architecture.md §2.11): the server uses query, query
 * uses store, nothing reaches back up. Only store/ talks to DuckDB and only
 * server/ to Fastify. The catalog, the planners and the server describe
 * queries without engine SQL; each store backend renders them (docs/storage.md).
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
  // MCP tools reach data only through the HTTP API; they read the catalog to describe it.
  mcp: ['catalog', 'query'],
  // Operator actions and ingestion jobs, run by the CLI or inside a server.
  operator: ['catalog', 'store', 'query', 'metering', 'reference', 'ingest', 'demo'],
  server: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'ingest', 'operator', 'mcp'],
  cli: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'ingest', 'demo', 'server', 'operator', 'mcp'],
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

  it('keeps engine SQL and engine types out of catalog/, query/ and server/', () => {
    // SQL statements and clauses, engine functions and casts, engine column
    // types, and placeholders of either dialect ($name, {name:Type}).
    const ENGINE_TEXT = [
      /\b(SELECT|INSERT\s+INTO|DELETE\s+FROM|CREATE\s+TABLE|GROUP\s+BY|ORDER\s+BY|LEFT\s+JOIN|CASE\s+WHEN)\b/,
      /\b(strftime|date_trunc|epoch_ms|make_timestamp|time_bucket|arg_min|arg_max|list_contains|formatDateTime|toDateTime64?)\s*\(/,
      /\bCAST\s*\(|::[A-Z]/,
      /\b(VARCHAR|BIGINT|BIGNUM|UBIGINT|UTINYINT|HUGEINT|TIMESTAMP|UInt256|Int256|DateTime64|LowCardinality)\b/,
      /(^|[^$\w])\$(?!ref\b)[a-z]\w*/, /\{[a-z]\w*:[A-Z]\w*(\(\d+\))?\}/,
    ];
    const code = (file: string) => fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const offenders = all
      .filter((file) => /^(catalog|query|server)$/.test(path.relative(SRC, file).split(path.sep)[0]!))
      .flatMap((file) => code(file).split('\n').map((line, i) => ({ file, line, n: i + 1 })))
      .filter(({ line }) => ENGINE_TEXT.some((re) => re.test(line)))
      .map(({ file, line, n }) => `${path.relative(SRC, file)}:${n}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('lets catalog/, query/ and server/ reach the engine only through store functions, never raw statements', () => {
    const offenders = all
      .filter((file) => /^(catalog|query|server)$/.test(path.relative(SRC, file).split(path.sep)[0]!))
      .filter((file) => /\b(store|tx|ctx\.store)\.(all|run|transaction)\s*[<(]/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});
