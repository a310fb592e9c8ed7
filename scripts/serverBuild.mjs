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
import { fileURLToPath } from 'node:url';

export const ENTRY = 'src/cli/main.ts';
export const OUT_DIR = 'dist/server';
export const MAIN = 'dist/server/main.js';
const STAMP = 'dist/server/.source-hash';
/** Sizes and modification times of the sources the build was made from: the quick check of every start. */
const STAT_STAMP = 'dist/server/.source-stat';

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

/**
 * Every bundled source's path, size and modification time, this build
 * script's and the bundler's version. Reading them is a directory walk and a
 * stat per file, where hashing reads every byte (about a quarter of a second
 * of each start on a busy machine); any edit changes a file's time, so equal
 * fingerprints mean the same sources, and unequal ones are settled by the hash.
 */
export function sourceFingerprint(root) {
  const h = createHash('sha256');
  const script = fileURLToPath(import.meta.url);
  for (const f of [...sources(path.join(root, 'src')), script]) {
    const st = fs.statSync(f);
    h.update(`${path.relative(root, f)}\0${st.size}\0${st.mtimeMs}\0`);
  }
  h.update(`esbuild@${esbuildVersion(root)}\0`);
  return h.digest('hex');
}

const readIfThere = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);

/** The built entry when the build exists and was made from the sources now in src/, else null. */
export function freshBuild(root) {
  const main = path.join(root, MAIN);
  const stamp = readIfThere(path.join(root, STAMP));
  if (!fs.existsSync(main) || stamp === null) return null;
  if (readIfThere(path.join(root, STAT_STAMP)) === sourceFingerprint(root)) return main;
  return stamp === sourceHash(root) ? main : null;
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
  const fingerprint = sourceFingerprint(root);
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
  fs.writeFileSync(path.join(root, STAT_STAMP), fingerprint);
}
