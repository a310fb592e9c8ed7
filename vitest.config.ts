import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

// As bin/chainq.js does: every streamed response holds libuv pool threads (the
// engine's COPY and the fifo read), so the default of 4 deadlocks at 4+
// concurrent streams. Workers inherit this from the main process.
process.env.UV_THREADPOOL_SIZE ??= '32';

// The shared-limit tests run against a real redis-server. CI installs it and
// sets CHAINQ_REQUIRE_REDIS=1, so there they always run; on a machine without
// it they are left out, loudly, rather than failing `npm test`.
const REDIS_TEST_FILES = [
  'src/metering/backend.test.ts',
  'test/server/redisMetering.test.ts',
  'test/server/exportChargeReplay.test.ts',
  'test/e2e/twoInstances.test.ts',
  'test/e2e/clickhouseCluster.test.ts',
];
const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;
if (!redisInstalled) {
  if (process.env.CHAINQ_REQUIRE_REDIS === '1') throw new Error('redis-server is required (CHAINQ_REQUIRE_REDIS=1) but not installed: apt-get install -y redis-server');
  process.stderr.write(
    `\nredis-server is not installed: skipping ${REDIS_TEST_FILES.join(', ')}.\nInstall it (apt-get install -y redis-server) to run the shared-limit, two-instance and Redis crash tests.\n\n`,
  );
}

// The explorer's browser tests drive Debian's Chromium (apt-get install -y
// chromium). CI installs it and sets CHAINQ_REQUIRE_BROWSER=1; elsewhere they
// are left out, loudly, when it is missing.
const BROWSER = '/usr/bin/chromium';
const BROWSER_TEST_FILES = ['test/web/explorer.test.ts', 'test/web/explorerFollow.test.ts'];
const browserInstalled = fs.existsSync(BROWSER);
if (!browserInstalled) {
  if (process.env.CHAINQ_REQUIRE_BROWSER === '1') throw new Error(`${BROWSER} is required (CHAINQ_REQUIRE_BROWSER=1) but not installed: apt-get install -y chromium`);
  process.stderr.write(`\n${BROWSER} is not installed: skipping ${BROWSER_TEST_FILES.join(', ')}.\nInstall it (apt-get install -y chromium) to run the explorer's browser tests.\n\n`);
}

// The API tests that run a second time with the API served from ClickHouse
// (chDB in process; docs/storage.md), expecting the same answers, bytes included.
// CHAINQ_TEST_ENGINES=duckdb leaves them out; CHAINQ_CHDB_TEST_FILES=a,b picks some.
// Every file that tests the API through the app is here, except:
// - test/server/explore.test.ts: serves the explorer's static files from a bare
//   Fastify, without a store: nothing in it depends on the engine;
// - test/server/operatorChannel.test.ts: the operator channel over a DuckDB
//   store it opens itself, whatever the project's engine: it would run the
//   very same thing twice;
// - test/web/explorer.test.ts: drives the page in a browser against a spawned
//   `chainq serve` on a data directory; it checks the page, whose requests are
//   the API's, checked here on chDB by test/server;
// - test/e2e, test/cli, test/ingest: `chainq` processes, ingestion and their
//   stores on disk (DuckDB by nature); their ClickHouse forms have files of
//   their own (test/e2e/clickhouseCli, test/e2e/ingestEvmClickhouse,
//   test/ingest/btcClickhouse), and test/store/clickhouse* compare both
//   engines side by side in the duckdb project.
const CHDB_TEST_FILES = process.env.CHAINQ_CHDB_TEST_FILES?.split(',') ?? ['test/server/**/*.test.ts', 'test/mcp/mcp.test.ts', 'test/query/planAggregate.test.ts'];
const CHDB_LEFT_OUT = ['test/server/explore.test.ts', 'test/server/operatorChannel.test.ts'];
const engines = (process.env.CHAINQ_TEST_ENGINES ?? 'duckdb,chdb').split(',');
const skipped = [...(redisInstalled ? [] : REDIS_TEST_FILES), ...(browserInstalled ? [] : BROWSER_TEST_FILES)];

export default defineConfig({
  test: {
    projects: [
      // The demo store the tests open, generated once per run (test/demoSetup.ts).
      ...(engines.includes('duckdb') ? [{ extends: true as const, test: { name: 'duckdb', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], globalSetup: ['test/demoSetup.ts'] } }] : []),
      ...(engines.includes('chdb')
        ? [
            {
              extends: true as const,
              test: {
                name: 'chdb',
                include: CHDB_TEST_FILES,
                exclude: [...configDefaults.exclude, ...skipped, ...CHDB_LEFT_OUT],
                env: { CHAINQ_TEST_STORE: 'chdb' },
                globalSetup: ['test/chdbSetup.ts'],
              },
            },
          ]
        : []),
    ],
    exclude: [...configDefaults.exclude, ...skipped],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: more workers only make DuckDB-heavy files slower.
    maxWorkers: 2,
  },
});
