#!/usr/bin/env node
/**
 * Builds the server (src/ → dist/server) when the build is missing or was made
 * from other sources. Runs on `npm install` (prepare) and before `npm start`
 * (prestart); a no-op when nothing changed. `--force` rebuilds anyway.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, freshBuild } from './serverBuild.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (freshBuild(root) && !process.argv.includes('--force')) process.exit(0);
const t0 = Date.now();
try {
  await buildServer(root);
} catch (e) {
  // bin/chainq.js then runs the sources through tsx: slower to start and larger, but correct.
  process.stderr.write(`server: build failed, chainq will run from src/ through tsx: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(0);
}
process.stderr.write(`server: built dist/server in ${Date.now() - t0} ms\n`);
