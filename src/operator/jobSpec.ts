/**
 * An ingestion job described as data: what `chainq ingest <source> …` asks
 * for, and what a `--config` file declares. The same description runs in the
 * CLI's own process (no server) or inside a running server (sent over the
 * operator channel), so both paths validate it here, in one place.
 */
import { parseTime } from '../query/time.ts';
import { compileSchema, describeSchemaError, parseWith } from '../utils/jsonSchema.ts';
import { InvalidInputError } from '../errors/chainqError.ts';

interface HttpSpec {
  /** Retries of a failing request (HTTP 429/5xx, network errors). */
  readonly retries?: number;
  /** First backoff in ms; doubles on each retry. */
  readonly retryDelay?: number;
  /** Per-request timeout in seconds. */
  readonly timeout?: number;
}

/** One node's URL, or several nodes serving the same chain. */
export type NodeUrls = string | readonly string[];

/** Node URLs as a list, whichever way a job description spells them. */
export const urlsOf = (urls: NodeUrls): readonly string[] => (typeof urls === 'string' ? [urls] : urls);

export interface EvmJobSpec {
  readonly source: 'evm';
  readonly network: string;
  readonly rpc: NodeUrls;
  readonly from?: number;
  readonly to?: number;
  readonly follow?: boolean;
  readonly confirmations?: number;
  /** Operator contract addresses file (absolute path on the server's machine). */
  readonly protocols?: string;
  readonly only?: readonly string[];
  /** Custom dataset declaration files (absolute paths on the server's machine; docs/custom-datasets.md). */
  readonly custom?: readonly string[];
  readonly traces?: 'auto' | 'trace_block' | 'debug_trace' | 'off';
  readonly batchBlocks?: number;
  readonly concurrency?: number;
  /** Requests in flight per node (the ceiling of its adaptive limit). */
  readonly rpcConcurrency?: number;
  /** Requests started per second per node (the ceiling of its adaptive rate). */
  readonly rpcMaxRate?: number;
  readonly rpcBatch?: number;
  readonly getLogsRange?: number;
  readonly force?: boolean;
  /** Seconds between head polls in follow mode. */
  readonly pollInterval?: number;
  readonly reorgWindow?: number;
  readonly skipChainCheck?: boolean;
}

export interface VenueAJobSpec extends HttpSpec {
  readonly source: 'venue_a';
  readonly token: readonly string[];
  /** Epoch milliseconds (a config file may also write a date or ISO time). */
  readonly since: number;
  readonly until: number;
  readonly archiveUrl?: string;
  readonly kinds?: readonly string[];
  readonly quote?: string;
  readonly concurrency?: number;
  readonly force?: boolean;
  readonly refresh?: boolean;
}

export interface VenueBJobSpec extends HttpSpec {
  readonly source: 'venue_b';
  readonly token: readonly string[];
  readonly since: number;
  readonly until: number;
  /** `--source`: a node data directory (absolute) or a base URL. */
  readonly sourceDir?: string;
  readonly infoUrl?: string;
  readonly datasets?: readonly string[];
  readonly force?: boolean;
}

interface BlockJobSpec extends HttpSpec {
  readonly from?: number;
  readonly to?: number;
  readonly follow?: boolean;
  readonly confirmations?: number;
  readonly batch?: number;
  readonly concurrency?: number;
  /** Seconds between head polls in follow mode. */
  readonly poll?: number;
  readonly force?: boolean;
  /** Requests in flight per node (the ceiling of its adaptive limit). */
  readonly nodeConcurrency?: number;
  /** Requests started per second per node (the ceiling of its adaptive rate). */
  readonly nodeMaxRate?: number;
}

export interface TronJobSpec extends BlockJobSpec {
  readonly source: 'tron';
  readonly api: NodeUrls;
  readonly datasets?: readonly string[];
  readonly allContracts?: boolean;
}

export interface BtcJobSpec extends BlockJobSpec {
  readonly source: 'btc';
  readonly rpc: NodeUrls;
}

/**
 * `chainq verify`: compare stored rows with a node's (src/ingest/evm/verifyEvm.ts).
 * With `every`, the job runs again every that many seconds until stopped: a
 * supervised periodic check, usually with `sample`.
 */
export interface VerifyJobSpec {
  readonly source: 'verify';
  readonly network: string;
  /** The node to compare with: JSON-RPC (EVM networks, Bitcoin). */
  readonly rpc?: string;
  /** The node to compare with on Tron: its full node HTTP API. */
  readonly api?: string;
  /** Tron: TRC-20 transfers were ingested for every contract, not only registry tokens. */
  readonly allContracts?: boolean;
  readonly blockStart?: number;
  readonly blockEnd?: number;
  /** Epoch milliseconds (a config file may also write a date or ISO time). */
  readonly since?: number;
  readonly until?: number;
  readonly sample?: number;
  /** Operator contract addresses file (absolute path on the server's machine), as ingestion's. */
  readonly protocols?: string;
  readonly batchBlocks?: number;
  readonly concurrency?: number;
  readonly skipChainCheck?: boolean;
  /** Seconds between runs; absent: run once. */
  readonly every?: number;
}

export type JobSpec = EvmJobSpec | VenueAJobSpec | VenueBJobSpec | TronJobSpec | BtcJobSpec | VerifyJobSpec;
export type JobSource = JobSpec['source'];

const int = { type: 'integer', minimum: 0 } as const;
const pos = { type: 'number', exclusiveMinimum: 0 } as const;
const str = { type: 'string', minLength: 1 } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: str, minItems: 1 } as const;
/** One URL, or a list of nodes serving the same chain. */
const urls = { anyOf: [str, strings] } as const;
/** As written: epoch milliseconds, or a date or time to read (parseTime). */
const writtenTime = { anyOf: [{ type: 'integer', minimum: 0 }, str] } as const;
const http = { retries: int, retryDelay: int, timeout: pos } as const;
const blocks = {
  from: int,
  to: int,
  follow: bool,
  confirmations: int,
  batch: pos,
  concurrency: pos,
  poll: pos,
  force: bool,
  nodeConcurrency: { type: 'integer', minimum: 1 },
  nodeMaxRate: pos,
  ...http,
} as const;
const spec = (source: JobSource, required: string[], properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: ['source', ...required],
  properties: { source: { const: source }, name: str, ...properties },
});

/** One JSON Schema per source, times as given by `time`; a job may also carry a `name` (config files name their jobs). */
const schemas = (time: object): Record<JobSource, object> => ({
  evm: spec('evm', ['network', 'rpc'], {
    network: str,
    rpc: urls,
    from: int,
    to: int,
    follow: bool,
    confirmations: int,
    protocols: str,
    only: strings,
    custom: strings,
    traces: { enum: ['auto', 'trace_block', 'debug_trace', 'off'] },
    batchBlocks: pos,
    concurrency: pos,
    rpcConcurrency: pos,
    rpcMaxRate: pos,
    rpcBatch: pos,
    getLogsRange: pos,
    force: bool,
    pollInterval: pos,
    reorgWindow: pos,
    skipChainCheck: bool,
  }),
  venue_a: spec('venue_a', ['token', 'since', 'until'], {
    token: strings,
    since: time,
    until: time,
    archiveUrl: str,
    kinds: strings,
    quote: str,
    concurrency: pos,
    force: bool,
    refresh: bool,
    ...http,
  }),
  venue_b: spec('venue_b', ['token', 'since', 'until'], {
    token: strings,
    since: time,
    until: time,
    sourceDir: str,
    infoUrl: str,
    datasets: strings,
    force: bool,
    ...http,
  }),
  tron: spec('tron', ['api'], { api: urls, datasets: strings, allContracts: bool, ...blocks }),
  btc: spec('btc', ['rpc'], { rpc: urls, ...blocks }),
  verify: spec('verify', ['network'], {
    network: str,
    rpc: str,
    api: str,
    allContracts: bool,
    blockStart: int,
    blockEnd: int,
    since: time,
    until: time,
    sample: { type: 'integer', minimum: 1 },
    protocols: str,
    batchBlocks: pos,
    concurrency: pos,
    skipChainCheck: bool,
    every: pos,
  }),
});

export const JOB_SOURCES: readonly JobSource[] = ['evm', 'venue_a', 'venue_b', 'tron', 'btc', 'verify'];
const isJobSource = (s: unknown): s is JobSource => JOB_SOURCES.some((k) => k === s);

/** A job description as checked: times already epoch milliseconds. */
export type NamedJobSpec = JobSpec & { readonly name?: string };

const WRITTEN = schemas(writtenTime);
const TYPED = schemas({ type: 'number' });
/** What an operator may write: errors are reported against these. */
const written = Object.fromEntries(JOB_SOURCES.map((k) => [k, compileSchema<unknown>(WRITTEN[k])]));
/** The same, once times are read: what a job runs with. */
const typed = compileSchema<NamedJobSpec>({ anyOf: JOB_SOURCES.map((k) => TYPED[k]) });

export class JobSpecError extends InvalidInputError {}

/**
 * Checks a job description and returns it with times as epoch milliseconds.
 * `where` names it in errors (`jobs[2]` in a config file), so a message points
 * at the bad field: `jobs[2].rpc: must be string`.
 */
export function parseJobSpec(value: unknown, where = 'job'): NamedJobSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JobSpecError(`${where}: must be an object`);
  const source = 'source' in value ? value.source : undefined;
  const validate = isJobSource(source) ? written[source] : undefined;
  if (!validate) throw new JobSpecError(`${where}.source: must be one of ${JOB_SOURCES.join(', ')}`);
  if (!validate(value)) {
    const errors = validate.errors ?? [];
    // A node list field fails both of its forms; the reader wants to hear about both at once.
    const urls = errors.find((e) => e.keyword === 'anyOf' && /^\/(rpc|api)$/.test(e.instancePath));
    const first = errors[0];
    if (urls) throw new JobSpecError(`${where}.${urls.instancePath.slice(1)}: must be a URL or a non-empty list of URLs`);
    throw new JobSpecError(first ? describeSchemaError(where, first) : `${where}: invalid`);
  }
  const out: Record<string, unknown> = { ...value };
  for (const k of ['since', 'until'] as const) {
    const v = out[k];
    if (typeof v === 'string') {
      const ms = parseTime(v);
      if (ms === null) throw new JobSpecError(`${where}.${k}: not a time: '${v}' (use YYYY-MM-DD, ISO 8601 or Unix seconds)`);
      out[k] = ms;
    }
  }
  const spec = parseWith(typed, out, (first) => new JobSpecError(first ? describeSchemaError(where, first) : `${where}: invalid`));
  if (spec.source === 'verify') checkVerifySelection(spec, where);
  return spec;
}

/** A verification names blocks, or times, or neither (everything covered); a range needs both ends. */
function checkVerifySelection(v: VerifyJobSpec, where: string): void {
  // Tron's node is an HTTP API (as `chainq ingest tron --api`), every other network's a JSON-RPC endpoint.
  const tron = v.network.toUpperCase() === 'TRON';
  if (tron && v.api === undefined) throw new JobSpecError(`${where}.api: required (the Tron full node HTTP API)`);
  if (!tron && v.rpc === undefined) throw new JobSpecError(`${where}.rpc: required`);
  if (tron && v.rpc !== undefined) throw new JobSpecError(`${where}.rpc: Tron's node is given by api`);
  if (!tron && v.api !== undefined) throw new JobSpecError(`${where}.api: only Tron's node is given by api; use rpc`);
  if ((v.blockStart === undefined) !== (v.blockEnd === undefined)) throw new JobSpecError(`${where}: blockStart and blockEnd go together`);
  if ((v.since === undefined) !== (v.until === undefined)) throw new JobSpecError(`${where}: since and until go together`);
  if (v.blockStart !== undefined && v.since !== undefined) throw new JobSpecError(`${where}: give a block range or a time range, not both`);
  if (v.blockStart !== undefined && v.blockEnd !== undefined && v.blockStart > v.blockEnd) throw new JobSpecError(`${where}.blockEnd: must not be before blockStart`);
  if (v.since !== undefined && v.until !== undefined && v.since >= v.until) throw new JobSpecError(`${where}.until: must be after since`);
}

/** A job's description for logs and status: its source and scope, never URLs (they may hold credentials). */
export function jobLabel(spec: JobSpec): string {
  switch (spec.source) {
    case 'evm':
      return `evm ${spec.network}${spec.follow ? ' (follow)' : ''}`;
    case 'venue_a':
    case 'venue_b':
      return `${spec.source} ${spec.token.join(',')}`;
    case 'tron':
    case 'btc':
      return `${spec.source}${spec.follow ? ' (follow)' : ''}`;
    case 'verify':
      return `verify ${spec.network.toUpperCase()}${spec.every ? ' (periodic)' : ''}`;
  }
}

/** The job itself, without the name a config file or the CLI gave it. */
export function withoutName(spec: NamedJobSpec): JobSpec {
  const { name: _, ...job } = spec;
  return job;
}
