/**
 * The demo store of the API tests (seed + TEST_DEMO), generated once per run
 * by a global setup (test/demoSetup.ts) into a DuckDB file, which each test
 * store then starts from. The demo's rows are a function of its options
 * (hashes, no clock, no randomness), so a copy holds exactly the rows a
 * generation of its own would; generating takes the engine seconds of CPU,
 * copying a fraction of one, and dozens of test files open the demo.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateDemo, type DemoOptions } from '../../src/demo/generate.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';

/** Half a day of demo data keeps test start-up to a couple of seconds. */
export const TEST_DEMO: DemoOptions = { days: 0.5 };

const DUCKDB_FILE = 'chainq.duckdb';

/** Writes the seed and TEST_DEMO into a DuckDB store in `dir`. */
export async function buildDemoTemplate(dir: string): Promise<void> {
  const store = await createStore({ dataDir: dir, threads: 2 });
  try {
    await loadSeed(store);
    await generateDemo(store, TEST_DEMO);
  } finally {
    await store.close();
  }
}

/**
 * The global setup's demo database file, or null when there is none (a run
 * without the setups): the caller then generates the demo itself. The chDB
 * project's template holds the same rows in DuckDB beside its chDB copy.
 */
export function demoTemplateFile(): string | null {
  const dirs = [process.env.CHAINQ_TEST_DEMO_TEMPLATE, process.env.CHAINQ_TEST_CHDB_TEMPLATE && path.join(process.env.CHAINQ_TEST_CHDB_TEMPLATE, 'duckdb')];
  for (const dir of dirs) {
    if (dir && fs.existsSync(path.join(dir, DUCKDB_FILE))) return path.join(dir, DUCKDB_FILE);
  }
  return null;
}

/** Puts the demo store into `dataDir` (a DuckDB store for this process or a `chainq` one to open): the template's file, else generated. */
export async function writeTestDemo(dataDir: string): Promise<void> {
  const template = demoTemplateFile();
  if (!template) return buildDemoTemplate(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.copyFileSync(template, path.join(dataDir, DUCKDB_FILE));
}
