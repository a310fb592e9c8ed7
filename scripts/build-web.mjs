#!/usr/bin/env node
/**
 * Builds the explorer (web/ → dist/web) when the build is missing or was made
 * from other sources. Runs on `npm install` (prepare) and before `npm start` (prestart), so a
 * fresh clone serves /explore; a no-op when nothing changed. `--force`
 * rebuilds anyway.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDir = path.join(root, 'web');
const outDir = path.join(root, 'dist', 'web');
const stampFile = path.join(outDir, '.source-hash');
const require = createRequire(import.meta.url);

function files(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => {
      const full = path.join(dir, d.name);
      return d.isDirectory() ? files(full) : [full];
    })
    .sort();
}

/** The sources and the versions of what builds them: a change in either means a rebuild. */
function sourceHash() {
  const h = createHash('sha256');
  for (const f of files(webDir)) h.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  for (const pkg of ['vite', 'preact', 'uplot']) {
    try {
      h.update(`${pkg}@${require(`${pkg}/package.json`).version}\0`);
    } catch {
      h.update(`${pkg}@missing\0`);
    }
  }
  return h.digest('hex');
}

const force = process.argv.includes('--force');
const hash = sourceHash();
const built = fs.existsSync(path.join(outDir, 'index.html')) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === hash;
if (built && !force) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  process.stderr.write('explorer: vite is not installed (an install without dev dependencies?), so /explore is not built; run `npm install` to get it.\n');
  process.exit(0);
}
const t0 = Date.now();
await vite.build({ configFile: path.join(webDir, 'vite.config.ts'), logLevel: 'warn' });
fs.writeFileSync(stampFile, hash);
process.stderr.write(`explorer: built dist/web in ${Date.now() - t0} ms\n`);
