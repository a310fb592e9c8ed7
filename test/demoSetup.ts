/**
 * Global setup of the `duckdb` test project: the demo store the API tests
 * open (test/helpers/demoTemplate.ts), generated once into a DuckDB file that
 * every test store starts as a copy of, and removed at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDemoTemplate, demoTemplateFile } from './helpers/demoTemplate.ts';

export default async function setup(): Promise<() => void> {
  // The chdb project's setup, when it ran first, left the same rows in DuckDB beside its template.
  if (demoTemplateFile()) return () => undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-demo-run-'));
  await buildDemoTemplate(dir);
  process.env.CHAINQ_TEST_DEMO_TEMPLATE = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
