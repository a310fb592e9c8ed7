/**
 * Global setup of the `chdb` test project: the demo store the API tests use
 * (seed + TEST_DEMO), built once in a DuckDB file and copied into a chDB data
 * directory with `chainq copy`'s code. Each test process starts from a copy
 * of both (createTestStores: the chDB store it serves, and its DuckDB oracle),
 * since chDB binds one data directory per process and building them takes
 * half a minute.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildChdbTemplate } from './helpers/testApp.ts';

export default async function setup(): Promise<() => void> {
  // The template and every test process's copy live under one directory, removed at the end
  // even when a worker was stopped before its own clean-up ran.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-run-'));
  const dir = path.join(root, 'template');
  await buildChdbTemplate(dir);
  process.env.CHAINQ_TEST_CHDB_TEMPLATE = dir;
  return () => fs.rmSync(root, { recursive: true, force: true });
}
