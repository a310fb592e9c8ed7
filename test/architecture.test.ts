/**
 * Imports flow one way (README, "Architecture"): the server uses query, query
 * uses store, nothing reaches back up. Only store/ talks to DuckDB and only
 * server/ to Fastify. The catalog, the planners and the server describe
 * queries without engine SQL; each store backend renders them (docs/storage.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
/** Shared helpers every layer may import; they import no other folder. */
const COMMON = ['errors', 'utils', 'internal'];
/**
 * Which top-level folders each folder may import from (besides itself and
 * COMMON): exactly the imports that exist, so that a new backward import fails
 * here and an allowance nothing uses any more is noticed and removed.
 */
const ALLOWED: Record<string, string[]> = {
  catalog: [],
  store: ['catalog'],
  reference: ['store', 'catalog'],
  query: ['store', 'catalog', 'reference'],
  ingest: ['store', 'catalog', 'reference', 'query'],
  output: ['catalog'],
  metering: ['store'],
  demo: ['store', 'catalog', 'reference', 'ingest'],
  client: ['catalog'],
  // MCP tools reach data only through the HTTP API; they read the catalog to describe it.
  mcp: ['catalog', 'query'],
  // Operator actions and ingestion jobs, run by the CLI or inside a server.
  operator: ['store', 'query', 'metering', 'reference', 'ingest', 'demo'],
  server: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'operator', 'mcp'],
  cli: ['store', 'query', 'output', 'metering', 'ingest', 'server', 'operator', 'mcp'],
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

/** Static imports and re-exports, and `import('…')` of a literal: a module loaded lazily is a dependency all the same. */
const imports = (file: string) => {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
};

describe('architecture', () => {
  const all = files(SRC);

  /** Every import of one top-level folder from another: [from, to, file, specifier]. */
  const crossImports = all.flatMap((file) => {
    const layer = path.relative(SRC, file).split(path.sep)[0]!;
    return imports(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => [layer, path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0]!, path.relative(SRC, file), spec] as const)
      .filter(([from, to]) => from !== to);
  });

  it('keeps imports flowing one way between layers', () => {
    const allowed = (from: string, to: string) => (ALLOWED[from] ?? []).includes(to) || (COMMON.includes(to) && !COMMON.includes(from));
    const violations = crossImports.filter(([from, to]) => !allowed(from, to)).map(([, , file, spec]) => `${file} imports ${spec}`);
    expect(violations).toEqual([]);
  });

  it('allows no cross-layer import that nothing makes', () => {
    const used = new Set(crossImports.map(([from, to]) => `${from} → ${to}`));
    const unused = Object.entries(ALLOWED)
      .flatMap(([from, tos]) => tos.map((to) => `${from} → ${to}`))
      .filter((pair) => !used.has(pair));
    expect(unused).toEqual([]);
  });

  it('names every folder of src/ in the allow-list', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in ALLOWED))).toEqual([]);
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
      /(^|[^$\w])\$(?!ref\b)[a-z]\w*/,
      /\{[a-z]\w*:[A-Z]\w*(\(\d+\))?\}/,
    ];
    const code = (file: string) =>
      fs
        .readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
    const offenders = all
      .filter((file) => /^(catalog|query|server)$/.test(path.relative(SRC, file).split(path.sep)[0]!))
      .flatMap((file) =>
        code(file)
          .split('\n')
          .map((line, i) => ({ file, line, n: i + 1 })),
      )
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

  it('cites only documents of this repository in src/, test/, bench/, scripts/, web/ and docs/', () => {
    // Specification and design files of the project's steering, which are not in this
    // repository: a comment citing one points nowhere for a reader of the code.
    const OUTSIDE = new RegExp(`\\b(${['interface', 'decisions', 'architecture', 'environment'].join('|')})\\.md\\b`);
    const ROOT = path.resolve(SRC, '..');
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'results' ? [] : walk(p);
        return /\.(ts|tsx|mjs|js|md)$/.test(e.name) ? [p] : [];
      });
    const offenders = ['src', 'test', 'bench', 'scripts', 'web/src', 'docs']
      .flatMap((d) => walk(path.join(ROOT, d)))
      .concat(path.join(ROOT, 'README.md'))
      .flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ file, line, n: i + 1 })),
      )
      .filter(({ line }) => OUTSIDE.test(line))
      .map(({ file, line, n }) => `${path.relative(ROOT, file)}:${n}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });
});
