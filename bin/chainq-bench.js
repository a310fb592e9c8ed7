#!/usr/bin/env node
process.env.UV_THREADPOOL_SIZE ??= '32';
const { register } = await import('tsx/esm/api');
register();
await import('../bench/run.ts');
