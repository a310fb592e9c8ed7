/**
 * What `chainq serve` loads when it starts: the modules reached from the
 * serve command by static imports. The packages below serve no request of a
 * default server (ingestion's ABI codec, the ClickHouse client, MCP, S3
 * links, Redis metering, progress bars, the TypeScript loader); each one
 * loaded at start stays in the idle server's memory for good (memory bench),
 * so they are imported where they are used, with `import()`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const LAZY_PACKAGES = ['viem', '@clickhouse/client', '@modelcontextprotocol/sdk', '@aws-sdk/client-s3', 'ioredis', 'cli-progress', 'tsx', 'esbuild', 'lz4-napi'];

/**
 * Specifiers a module loads for their values when it loads: its value imports, and packages it
 * requires at module scope through `createRequire(import.meta.url)('…')` (src/store/duckdb/nodeApi.ts);
 * type-only imports, `import()` and requires inside functions (loaded when first called) are left out.
 */
function staticImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^(?:export\s+)?const\s+[^=]+=\s*createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/gm),
  ].flatMap((m) => (m[1] ? [m[1]] : []));
}

/** Every package reached from `entry` through static imports, with the chain of modules that reaches it first. */
function packagesReached(entry: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[entry, [path.relative(SRC, entry)]]]);
  const packages = new Map<string, string[]>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const chain = chains.get(file) ?? [];
    for (const spec of staticImports(file)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
        if (!packages.has(name)) packages.set(name, [...chain, spec]);
        continue;
      }
      const next = path.resolve(path.dirname(file), spec);
      if (chains.has(next)) continue;
      chains.set(next, [...chain, path.relative(SRC, next)]);
      queue.push(next);
    }
  }
  return packages;
}

describe('chainq serve at start', () => {
  it('loads none of the packages only ingestion, ClickHouse, MCP, S3 links or Redis use', () => {
    const reached = packagesReached(path.join(SRC, 'cli/serve.ts'));
    // The walk itself works: the server's own packages are found.
    expect([...reached.keys()]).toEqual(expect.arrayContaining(['fastify', '@duckdb/node-api', 'pino']));
    for (const name of LAZY_PACKAGES) expect(reached.get(name), `${name} is loaded at start through ${reached.get(name)?.join(' → ')}`).toBeUndefined();
  });
});
