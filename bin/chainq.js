#!/usr/bin/env node
// The thread pool must be sized before anything touches it: every streamed
// response holds one pool thread for DuckDB and one for the pipe read.
process.env.UV_THREADPOOL_SIZE ??= '32';
// The production build (dist/server, made by `npm install` and `npm start`)
// while it matches src/; otherwise src/ through tsx, so that an edited
// checkout runs what it holds.
const { fileURLToPath } = await import('node:url');
const { freshBuild } = await import('../scripts/serverBuild.mjs');
const root = fileURLToPath(new URL('..', import.meta.url));
// Protocols named by CHAINQ_PROTOCOLS may be TypeScript (docs/adding-a-protocol.md): they load through tsx.
const built = process.env.CHAINQ_PROTOCOLS ? null : freshBuild(root);
if (built) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
