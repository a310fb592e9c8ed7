/**
 * The server's production build: src/ bundled by esbuild into dist/server,
 * with a stamp of what it was built from. `bin/chainq.js` runs the build only
 * while the stamp matches the sources (else it runs src/ through tsx), so an
 * edited checkout never runs stale code and an installed one never pays for
 * the TypeScript loader (its transform cache and esbuild service held for the
 * process's life). Plain JavaScript: it runs before anything can load
 * TypeScript.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const ENTRY = 'src/cli/main.ts';
export const OUT_DIR = 'dist/server';
export const MAIN = 'dist/server/main.js';
const STAMP = 'dist/server/.source-hash';

function sources(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) return sources(full);
      return full.endsWith('.ts') && !full.endsWith('.test.ts') ? [full] : [];
    })
    .sort();
}

function esbuildVersion(root) {
  try {
    return createRequire(path.join(root, 'package.json'))('esbuild/package.json').version;
  } catch {
    return 'missing';
  }
}

/** Every bundled source, this build script and the bundler's version: a change in any means a rebuild. */
export function sourceHash(root) {
  const h = createHash('sha256');
  for (const f of sources(path.join(root, 'src'))) h.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  h.update(fs.readFileSync(new URL(import.meta.url)));
  h.update(`esbuild@${esbuildVersion(root)}\0`);
  return h.digest('hex');
}

/** The built entry when the build exists and was made from the sources now in src/, else null. */
export function freshBuild(root) {
  const main = path.join(root, MAIN);
  const stamp = path.join(root, STAMP);
  if (!fs.existsSync(main) || !fs.existsSync(stamp)) return null;
  return fs.readFileSync(stamp, 'utf8') === sourceHash(root) ? main : null;
}

/**
 * Bundles src/ into dist/server. Packages stay external (native engines, and
 * node_modules is there at run time anyway); dynamic imports become chunks of
 * their own, so what the server loads lazily stays lazy.
 */
export async function buildServer(root) {
  const esbuild = await import('esbuild');
  const out = path.join(root, OUT_DIR);
  const hash = sourceHash(root);
  fs.rmSync(out, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: ENTRY },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
  fs.writeFileSync(path.join(root, STAMP), hash);
}
