/**
 * The package's root folder, found from the running module: the same code runs
 * from src/ (through tsx) and bundled into dist/server/, so paths to files
 * shipped beside the code (the explorer build, the reference seed) cannot be
 * counted in `..` from the module's own folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`chainq: no package root above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
