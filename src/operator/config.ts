/**
 * `chainq serve --config FILE`: the ingestion the server starts and
 * supervises. JSON, checked when the server starts; an error names the file
 * and the bad field (`chainq.json: jobs[1].rpc: required`).
 *
 *   {"jobs": [
 *     {"name": "eth", "source": "evm", "network": "ETH", "rpc": "http://node:8545", "follow": true, "confirmations": 12},
 *     {"name": "btc-candles", "source": "venue_a", "token": ["BTC"], "since": "2025-12-01", "until": "2025-12-08"}
 *   ]}
 */
import fs from 'node:fs';
import { jobLabel, JobSpecError, parseJobSpec, type JobSpec } from './jobSpec.ts';

export interface ConfiguredJob {
  readonly name: string;
  readonly spec: JobSpec;
}

export interface ServeConfig {
  readonly jobs: readonly ConfiguredJob[];
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function parseServeConfig(text: string, source: string): ServeConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${source}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigError(`${source}: expected an object {"jobs": [...]}`);
  const unknown = Object.keys(doc).filter((k) => k !== 'jobs');
  if (unknown.length) throw new ConfigError(`${source}: ${unknown[0]}: unknown field; only "jobs" is read`);
  const list = (doc as { jobs?: unknown }).jobs ?? [];
  if (!Array.isArray(list)) throw new ConfigError(`${source}: jobs: must be an array`);
  const names = new Set<string>();
  const jobs = list.map((raw, i): ConfiguredJob => {
    let parsed: ReturnType<typeof parseJobSpec>;
    try {
      parsed = parseJobSpec(raw, `jobs[${i}]`);
    } catch (e) {
      if (e instanceof JobSpecError) throw new ConfigError(`${source}: ${e.message}`);
      throw e;
    }
    const { name, ...spec } = parsed;
    const jobName = name ?? jobLabel(spec as JobSpec);
    if (names.has(jobName)) throw new ConfigError(`${source}: jobs[${i}].name: '${jobName}' is used twice`);
    names.add(jobName);
    return { name: jobName, spec: spec as JobSpec };
  });
  return { jobs };
}

export function loadServeConfig(file: string): ServeConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseServeConfig(text, file);
}
