#!/usr/bin/env node
// The thread pool must be sized before anything touches it: every streamed
// response holds one pool thread for DuckDB and one for the pipe read.
process.env.UV_THREADPOOL_SIZE ??= '32';
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/main.ts');
