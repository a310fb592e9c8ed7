/**
 * Global setup of the `chdb` test project: the demo store the API tests use
 * (seed + TEST_DEMO), built once in DuckDB and copied into a chDB data
 * directory with `chainq copy`'s code. Each test process starts from a copy
 * of that directory (createTestStore), since chDB binds one data directory
 * per process and building it takes half a minute.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildChdbTemplate } from './helpers/testApp.ts';

export default async function setup(): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-chdb-template-'));
  await buildChdbTemplate(dir);
  process.env.CHAINQ_TEST_CHDB_TEMPLATE = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
