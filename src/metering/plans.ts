/**
 * Plans: a name, a per-minute request limit and a monthly block budget
 * (docs/metering.md, "Plans"). They are operator configuration: a JSON file whose
 * entries are laid over the shipped defaults, so an operator who only wants
 * to change `free` writes only `free`.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Plan {
  readonly name: string;
  /** Requests per minute; null means no per-minute limit. */
  readonly requestsPerMinute: number | null;
  /** Blocks per calendar month (UTC); null means no monthly budget. */
  readonly monthlyBlocks: number | null;
  /**
   * Requests of one key in flight at once on one server, streaming included;
   * null means no limit. It keeps one key's burst of exports from taking a
   * server's engine from everyone else (docs/metering.md).
   */
  readonly concurrentRequests: number | null;
  /** Live streams (`…/stream` routes) of one key open at once on one server; null means no limit. */
  readonly concurrentStreams: number | null;
}

export type Plans = ReadonlyMap<string, Plan>;

export const DEFAULT_PLANS: Plans = new Map<string, Plan>([
  ['free', { name: 'free', requestsPerMinute: 60, monthlyBlocks: 500_000, concurrentRequests: 8, concurrentStreams: 2 }],
  ['pro', { name: 'pro', requestsPerMinute: 600, monthlyBlocks: 50_000_000, concurrentRequests: 32, concurrentStreams: 16 }],
  ['unlimited', { name: 'unlimited', requestsPerMinute: null, monthlyBlocks: null, concurrentRequests: null, concurrentStreams: null }],
]);

/** The file read when no --plans is given: `<data>/plans.json`, if it exists. */
export const PLANS_FILE_NAME = 'plans.json';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The plan fields of the file; a new plan must give the required ones, `concurrent_requests` and `concurrent_streams` default to no limit. */
const REQUIRED_FIELDS = ['requests_per_minute', 'monthly_blocks'] as const;
const FIELDS: readonly string[] = [...REQUIRED_FIELDS, 'concurrent_requests', 'concurrent_streams'];

function limitValue(v: unknown, where: string): number | null {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  throw new Error(`${where} must be a non-negative integer or null (no limit), got ${JSON.stringify(v)}`);
}

function positiveLimit(v: unknown, where: string): number | null {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) return v;
  throw new Error(`${where} must be a positive integer or null (no limit), got ${JSON.stringify(v)}`);
}

/**
 * Parses the plans file:
 * `{"plans": {"free": {"requests_per_minute": 60, "monthly_blocks": 500000}, …}}`.
 * Both fields are required for a plan the defaults do not know; for a shipped
 * plan, a missing field keeps the shipped value.
 */
export function parsePlans(text: string, source = 'plans file', base: Plans = DEFAULT_PLANS): Plans {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not valid JSON (${(e as Error).message})`);
  }
  const plans = (doc as { plans?: unknown } | null)?.plans;
  if (typeof doc !== 'object' || doc === null || typeof plans !== 'object' || plans === null || Array.isArray(plans)) {
    throw new Error(`${source}: expected an object {"plans": {"<name>": {"requests_per_minute": n, "monthly_blocks": n}}}`);
  }
  const unknownTop = Object.keys(doc).filter((k) => k !== 'plans');
  if (unknownTop.length) throw new Error(`${source}: unknown field ${unknownTop.join(', ')}; only "plans" is read`);
  const out = new Map(base);
  for (const [name, raw] of Object.entries(plans as Record<string, unknown>)) {
    if (!NAME.test(name)) throw new Error(`${source}: plan name '${name}' must be 1-64 letters, digits, _ or -`);
    if (typeof raw !== 'object' || raw === null) throw new Error(`${source}: plan ${name} must be an object`);
    const r = raw as Record<string, unknown>;
    const extra = Object.keys(r).filter((k) => !FIELDS.includes(k));
    if (extra.length) throw new Error(`${source}: plan ${name} has unknown field ${extra.join(', ')}`);
    const prev = base.get(name);
    for (const f of REQUIRED_FIELDS) {
      if (!(f in r) && !prev) throw new Error(`${source}: plan ${name} needs ${f} (an integer, or null for no limit)`);
    }
    out.set(name, {
      name,
      requestsPerMinute: 'requests_per_minute' in r ? limitValue(r.requests_per_minute, `${source}: ${name}.requests_per_minute`) : prev!.requestsPerMinute,
      monthlyBlocks: 'monthly_blocks' in r ? limitValue(r.monthly_blocks, `${source}: ${name}.monthly_blocks`) : prev!.monthlyBlocks,
      concurrentRequests: 'concurrent_requests' in r ? positiveLimit(r.concurrent_requests, `${source}: ${name}.concurrent_requests`) : (prev?.concurrentRequests ?? null),
      concurrentStreams: 'concurrent_streams' in r ? limitValue(r.concurrent_streams, `${source}: ${name}.concurrent_streams`) : (prev?.concurrentStreams ?? null),
    });
  }
  return out;
}

/**
 * The plans in force: `file` when given (it must exist), else
 * `<dataDir>/plans.json` when present, else the shipped defaults.
 */
export function loadPlans(opts: { file?: string | undefined; dataDir?: string | null | undefined }): Plans {
  const explicit = opts.file !== undefined;
  const file = opts.file ?? (opts.dataDir ? path.join(opts.dataDir, PLANS_FILE_NAME) : undefined);
  if (file === undefined) return DEFAULT_PLANS;
  if (!fs.existsSync(file)) {
    if (explicit) throw new Error(`plans file ${file} does not exist`);
    return DEFAULT_PLANS;
  }
  return parsePlans(fs.readFileSync(file, 'utf8'), file);
}

export function describePlan(p: Plan): string {
  const rpm = p.requestsPerMinute === null ? 'no per-minute limit' : `${p.requestsPerMinute}/min`;
  const blocks = p.monthlyBlocks === null ? 'no monthly budget' : `${p.monthlyBlocks.toLocaleString('en-US')} blocks/month`;
  const concurrent = p.concurrentRequests === null ? 'no concurrency limit' : `${p.concurrentRequests} at once`;
  const streams = p.concurrentStreams === null ? 'no stream limit' : `${p.concurrentStreams} stream${p.concurrentStreams === 1 ? '' : 's'} at once`;
  return `${p.name}: ${rpm}, ${blocks}, ${concurrent}, ${streams}`;
}
