import { defineConfig } from 'vitest/config';

// As bin/chainq.js does: every streamed response holds libuv pool threads (the
// engine's COPY and the fifo read), so the default of 4 deadlocks at 4+
// concurrent streams. Workers inherit this from the main process.
process.env.UV_THREADPOOL_SIZE ??= '32';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: more workers only make DuckDB-heavy files slower.
    maxWorkers: 2,
  },
});
