/**
 * Builds the explorer (web/) into dist/web, which `chainq serve` hands out at
 * /explore. Everything is bundled: the page loads nothing from elsewhere.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/explore/',
  logLevel: 'warn',
  // Preact's JSX runtime, without a framework plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: path.join(here, '..', 'dist', 'web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // One small page: no source maps shipped, no preload polyfill fetched.
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
});
