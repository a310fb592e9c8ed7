/**
 * Imports flow one way (README, "Architecture"): the server uses query, query
 * uses store, nothing reaches back up, and no module imports itself through
 * others. Only store/ talks to DuckDB and only server/ to Fastify. Outside
 * store/ no code holds engine SQL or branches on the engine: queries are
 * engine-neutral descriptions each engine renders, and writes are named store
 * operations each engine implements (docs/storage.md).
 */
import fs from 'node:fs';
import os from 'node:os';
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
  // The assembled catalog (CATALOG_ASSEMBLY) takes its EVM datasets from the protocol registry.
  catalog: ['protocols'],
  // One folder per EVM protocol, and the registry: above the catalog's building blocks, below the assembled catalog (see the test on CATALOG_ASSEMBLY).
  protocols: ['catalog'],
  store: ['catalog', 'protocols'],
  reference: ['store', 'catalog', 'protocols'],
  query: ['store', 'catalog', 'reference'],
  ingest: ['store', 'catalog', 'reference', 'query', 'protocols'],
  output: ['catalog'],
  metering: ['store'],
  demo: ['store', 'reference', 'ingest'],
  client: ['catalog'],
  // MCP tools reach data only through the HTTP API; they read the catalog to describe it.
  mcp: ['catalog', 'query'],
  // Operator actions and ingestion jobs, run by the CLI or inside a server.
  operator: ['store', 'query', 'metering', 'reference', 'ingest', 'demo'],
  server: ['catalog', 'store', 'query', 'output', 'metering', 'reference', 'operator', 'mcp'],
  cli: ['store', 'query', 'output', 'metering', 'ingest', 'server', 'operator', 'mcp', 'protocols'],
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

/** Every .ts file under `dir` (results and node_modules left out). */
const tsFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'results' ? [] : tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });

/**
 * Static imports and re-exports, side-effect imports (`import '…'`), and `import('…')` of a literal: a
 * module loaded for its effects or lazily is a dependency all the same.
 */
const imports = (file: string) => {
  const text = fs.readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
};

/**
 * "file imports spec" for every TypeScript file under `roots` (relative to the
 * repository) that imports one of the `raw` modules by a relative path, except
 * files under `allowed.dirs` or named in `allowed.files` (both relative to the
 * repository).
 */
function importersOutside(raw: readonly string[], roots: readonly string[], allowed: { readonly dirs: readonly string[]; readonly files?: readonly string[] }): string[] {
  const ROOT = path.resolve(SRC, '..');
  const dirs = allowed.dirs.map((d) => path.join(ROOT, d) + path.sep);
  const files = (allowed.files ?? []).map((f) => path.join(ROOT, f));
  return roots
    .flatMap((d) => tsFiles(path.join(ROOT, d)))
    .filter((file) => !dirs.some((dir) => file.startsWith(dir)) && !files.includes(file))
    .flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && raw.includes(path.resolve(path.dirname(file), spec)))
        .map((spec) => `${path.relative(ROOT, file)} imports ${spec}`),
    );
}

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

  it('sees every form of import: from, re-export, side effect and import() of a literal', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-imports-')), 'forms.ts');
    fs.writeFileSync(
      file,
      ["import { a } from './a.ts';", "export { b } from './b.ts';", "import './c.ts';", "const d = await import('./d.ts');", "const e = 1; // import './not.ts' mid-line is no import"].join('\n'),
    );
    try {
      expect(imports(file).sort()).toEqual(['./a.ts', './b.ts', './c.ts', './d.ts']);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('keeps imports flowing one way between layers', () => {
    const allowed = (from: string, to: string) => (ALLOWED[from] ?? []).includes(to) || (COMMON.includes(to) && !COMMON.includes(from));
    const violations = crossImports.filter(([from, to]) => !allowed(from, to)).map(([, , file, spec]) => `${file} imports ${spec}`);
    expect(violations).toEqual([]);
  });

  /**
   * The catalog's modules that hold or derive from the assembled catalog; the
   * rest of catalog/ (types, shared column and parameter helpers, networks,
   * the other families' entries) are its building blocks. Protocols build
   * their entries from the blocks and the assembly lists the protocols, so
   * catalog/ and protocols/ import each other only in this order.
   */
  const CATALOG_ASSEMBLY = ['catalog/index.ts', 'catalog/coverage.ts', 'catalog/calculateCost.ts', 'catalog/derive/'];
  const inAssembly = (rel: string) => CATALOG_ASSEMBLY.some((p) => rel.split(path.sep).join('/').startsWith(p));

  it('lets protocols/ use only the catalog’s building blocks, and only the assembled catalog use protocols/', () => {
    const wrong = crossImports
      .filter(([from, to, file, spec]) => {
        const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), spec));
        if (from === 'protocols' && to === 'catalog') return inAssembly(target);
        if (from === 'catalog' && to === 'protocols') return !inAssembly(file);
        return false;
      })
      .map(([, , file, spec]) => `${file} imports ${spec}`);
    expect(wrong).toEqual([]);
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

  it('has no import cycle between modules of src/', () => {
    // Type-only imports count too. They vanish at run time, so they cannot
    // break module initialisation, but a cycle of types still means two
    // modules that each need the other to be read or changed: the cycles this
    // check first found were definitions kept in the wrong module (the store's
    // contract inside the DuckDB store, helpers of the demo's generators inside
    // the module calling them), whichever kind of import closed them.
    const graph = new Map(
      all.map((file) => [
        file,
        imports(file)
          .filter((spec) => spec.startsWith('.'))
          .map((spec) => path.resolve(path.dirname(file), spec)),
      ]),
    );
    // Tarjan's strongly connected components: every component of more than one module is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) !== index.get(v)) return;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(SRC, w));
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    };
    for (const file of all) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
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

  const outsideStore = all.filter((file) => !path.relative(SRC, file).startsWith(`store${path.sep}`));
  // SQL statements and clauses, engine functions and casts, engine column
  // types, placeholders of either dialect ($name, {name:Type}), and branches
  // on the engine.
  const ENGINE_TEXT = [
    /\b(SELECT|INSERT\s+INTO|DELETE\s+FROM|CREATE\s+TABLE|GROUP\s+BY|ORDER\s+BY|LEFT\s+JOIN|CASE\s+WHEN)\b/,
    /\b(strftime|date_trunc|epoch_ms|make_timestamp|time_bucket|arg_min|arg_max|list_contains|formatDateTime|toDateTime64?)\s*\(/,
    /\bCAST\s*\(|::[A-Z]/,
    /\b(VARCHAR|BIGINT|BIGNUM|UBIGINT|UTINYINT|HUGEINT|TIMESTAMP|UInt256|Int256|DateTime64|LowCardinality)\b/,
    /(^|[^$\w])\$(?!ref\b)[a-z]\w*/,
    /\{[a-z]\w*:[A-Z]\w*(\(\d+\))?\}/,
    /\bclickHouseOf\b/,
  ];
  /** Raw statements through the store's `all`/`run`/`transaction` or a transaction's `append`. */
  const RAW_STATEMENT = /\b(store|tx|scratch|ctx\.store|ctx\.tx)\.(all|run|transaction|append)\s*[<(]/;
  const code = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
  const engineLines = (file: string) =>
    code(file)
      .split('\n')
      .map((line, i) => ({ line, n: i + 1 }))
      .filter(({ line }) => ENGINE_TEXT.some((re) => re.test(line)));

  it('keeps engine SQL, engine types and engine branches inside src/store/', () => {
    const offenders = outsideStore.flatMap((file) => engineLines(file).map(({ line, n }) => `${path.relative(SRC, file)}:${n}: ${line.trim()}`));
    expect(offenders).toEqual([]);
  });

  it('lets code outside src/store/ reach the engine only through store operations, never raw statements', () => {
    const offenders = outsideStore.filter((file) => RAW_STATEMENT.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it('lets only src/store/ import an engine folder (src/store/openStore.ts picks the engine)', () => {
    const engineFolders = ['duckdb', 'clickhouse'].map((f) => path.join(SRC, 'store', f) + path.sep);
    const offenders = outsideStore.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && engineFolders.some((dir) => path.resolve(path.dirname(file), spec).startsWith(dir)))
        .map((spec) => `${path.relative(SRC, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  /**
   * The neutral layer: the modules directly in src/store/, which every engine
   * shares. openStore.ts picks the engine when a store opens and is the one
   * module there that may reach into an engine folder (target.ts parses a
   * store's address, whose scheme names the engine, and imports none).
   */
  const neutralStore = all.filter((file) => path.dirname(file) === path.join(SRC, 'store') && path.basename(file) !== 'openStore.ts');

  it('lets no module of the neutral store layer but openStore.ts import an engine folder', () => {
    const engineFolders = ['duckdb', 'clickhouse'].map((f) => path.join(SRC, 'store', f) + path.sep);
    const offenders = neutralStore.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && engineFolders.some((dir) => path.resolve(path.dirname(file), spec).startsWith(dir)))
        .map((spec) => `${path.relative(SRC, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps engine branches out of the neutral store layer: each engine implements the named operations in its own folder', () => {
    const BRANCH = /\bclickHouseOf\b|\.engine\s*[!=]==/;
    const offenders = neutralStore
      .filter((file) => path.basename(file) !== 'target.ts')
      .flatMap((file) =>
        code(file)
          .split('\n')
          .map((line, i) => ({ line, n: i + 1 }))
          .filter(({ line }) => BRANCH.test(line))
          .map(({ line, n }) => `${path.relative(SRC, file)}:${n}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });

  it('offers no raw statements in the Store contract', () => {
    // The contract's interface, from its opening brace to the closing one at the start of a line.
    const contract = /^export interface Store \{\n([\s\S]*?)^\}/m.exec(code(path.join(SRC, 'store/types.ts')))?.[1];
    expect(contract).toBeDefined();
    const members = [...(contract ?? '').matchAll(/^ {2}(?:readonly )?(\w+)\??\s*[<(:]/gm)].map((m) => m[1]);
    expect(members).toContain('snapshot');
    expect(members.filter((m) => m === 'all' || m === 'run' || m === 'transaction')).toEqual([]);
  });

  it('lets only src/store/, test/helpers/ and bench/lib/ reach a DuckDB store’s raw statements', () => {
    // A DuckDB store's statements are typed only by src/store/duckdb/types.ts
    // (duckDbOf, requireDuckDb) and by the store it opens (createDuckDbStore).
    // Tests and benches inspect engine state through test/helpers/engineSql.ts.
    const raw = [path.join(SRC, 'store/duckdb/types.ts'), path.join(SRC, 'store/duckdb/createDuckDbStore.ts')];
    expect(importersOutside(raw, ['src', 'test', 'bench'], { dirs: ['src/store', 'test/helpers', 'bench/lib'] })).toEqual([]);
  });

  it('lets only src/store/clickhouse/, src/store/openStore.ts and test/helpers/ reach a ClickHouse store’s raw statements', () => {
    // A ClickHouse store's statements (query, command, insert, its client)
    // are typed by src/store/clickhouse/types.ts and handed out by the store
    // it opens (createClickHouseStore, clickHouseOf) and by a bare connection
    // (connect.ts). openStore.ts opens a store and hands it on as a Store;
    // tests and benches reach the rest through test/helpers/clickhouseStore.ts.
    const raw = ['types.ts', 'createClickHouseStore.ts', 'connect.ts'].map((f) => path.join(SRC, 'store/clickhouse', f));
    expect(importersOutside(raw, ['src', 'test', 'bench', 'scripts'], { dirs: ['src/store/clickhouse', 'test/helpers'], files: ['src/store/openStore.ts'] })).toEqual([]);
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
