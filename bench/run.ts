/** Runs the bench scenarios and writes bench/results/*.json. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchContext, BenchResult } from './types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scenarioDir = path.join(root, 'bench', 'scenarios');
const resultsDir = path.join(root, 'bench', 'results');
const only = process.argv.slice(2);

fs.mkdirSync(resultsDir, { recursive: true });
fs.writeFileSync(
  path.join(resultsDir, 'machine.json'),
  `${JSON.stringify(
    {
      measured_at: new Date().toISOString(),
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    null,
    2,
  )}\n`,
);

const files = fs
  .readdirSync(scenarioDir)
  .filter((f) => f.endsWith('.ts'))
  .sort();
let failed = false;
for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  if (only.length && !only.includes(name)) continue;
  const workDir = path.join(root, 'bench', 'work', name);
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.mkdirSync(workDir, { recursive: true });
  const ctx: BenchContext = { workDir, root, log: (m) => process.stderr.write(`[${name}] ${m}\n`) };
  const t0 = Date.now();
  try {
    const mod = (await import(pathToFileURL(path.join(scenarioDir, file)).href)) as { default: (c: BenchContext) => Promise<BenchResult> };
    const result = await mod.default(ctx);
    fs.writeFileSync(path.join(resultsDir, `${name}.json`), `${JSON.stringify({ ...result, seconds: (Date.now() - t0) / 1000 }, null, 2)}\n`);
    for (const f of result.figures) process.stdout.write(`${name}: ${f.name}: ratio ${f.ratio.toFixed(3)} (${f.ratio_meaning})${f.target ? ` target ${f.target}` : ''}\n`);
  } catch (e) {
    failed = true;
    process.stderr.write(`[${name}] failed: ${(e as Error).stack ?? String(e)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
