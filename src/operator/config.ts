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
import type { ErrorObject } from 'ajv';
import { errnoCode, messageOf } from '../utils/errorText.ts';
import { compileSchema, parseWith } from '../utils/jsonSchema.ts';
import { jobLabel, JobSpecError, parseJobSpec, withoutName, type JobSpec, type NamedJobSpec } from './jobSpec.ts';
import { InvalidInputError } from '../errors/chainqError.ts';

export interface ConfiguredJob {
  readonly name: string;
  readonly spec: JobSpec;
}

export interface ServeConfig {
  readonly jobs: readonly ConfiguredJob[];
}

export class ConfigError extends InvalidInputError {}

/** The file's shape; each job is then checked by parseJobSpec, which names the job in its errors. */
const validateConfig = compileSchema<{ readonly jobs?: readonly unknown[] }>({
  type: 'object',
  properties: { jobs: { type: 'array' } },
  additionalProperties: false,
});

function configMistake(source: string, e: ErrorObject | undefined): ConfigError {
  if (e?.keyword === 'additionalProperties') return new ConfigError(`${source}: ${String(e.params.additionalProperty)}: unknown field; only "jobs" is read`);
  if (e?.instancePath === '/jobs') return new ConfigError(`${source}: jobs: must be an array`);
  return new ConfigError(`${source}: expected an object {"jobs": [...]}`);
}

export function parseServeConfig(text: string, source: string): ServeConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${source}: not valid JSON (${messageOf(e)})`);
  }
  const list = parseWith(validateConfig, doc, (e) => configMistake(source, e)).jobs ?? [];
  const names = new Set<string>();
  const jobs = list.map((raw, i): ConfiguredJob => {
    let parsed: NamedJobSpec;
    try {
      parsed = parseJobSpec(raw, `jobs[${i}]`);
    } catch (e) {
      if (e instanceof JobSpecError) throw new ConfigError(`${source}: ${e.message}`);
      throw e;
    }
    const jobName = parsed.name ?? jobLabel(parsed);
    if (names.has(jobName)) throw new ConfigError(`${source}: jobs[${i}].name: '${jobName}' is used twice`);
    names.add(jobName);
    return { name: jobName, spec: withoutName(parsed) };
  });
  return { jobs };
}

export function loadServeConfig(file: string): ServeConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read it (${errnoCode(e) ?? messageOf(e)})`);
  }
  return parseServeConfig(text, file);
}
