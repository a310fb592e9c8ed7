/**
 * What a protocol is: its catalog entries, the section of the protocols file
 * that configures its contracts (a JSON Schema and how a valid entry is read),
 * how a run plans and decodes it, and a line for the CLI's help. A protocol
 * folder builds one with `defineProtocol`; the registry (index.ts) derives the
 * rest of the service from a list of them.
 */
import { Ajv, type ErrorObject, type Schema, type ValidateFunction } from 'ajv';
import type { ChainEndpoint } from '../catalog/types.ts';
import type { ProtocolDemo } from './demo.ts';
import type { Hex } from './evmNode.ts';
import type { PlanProtocol, ProtocolPlan } from './types.ts';

/** A protocol's section of the protocols file: one entry per network code. */
export interface ConfigSpec<In, C> {
  /**
   * JSON Schema of one network's entry. Each property's `description` ends the
   * error message of a value that does not fit ("… must be <description>").
   */
  readonly schema: Schema;
  /** A valid entry as the protocol uses it (addresses lowercased, absent blocks null). */
  read(entry: In): C;
}

export interface ProtocolSpec<In, C> {
  /** The catalog's `protocol` of its datasets, the `--only` name and the protocols file's section. */
  readonly name: string;
  /** What it ingests, for the CLI's help. */
  readonly summary: string;
  readonly endpoints: readonly ChainEndpoint[];
  readonly config?: ConfigSpec<In, C>;
  readonly plan: PlanProtocol<C>;
  /** Events its decoder asks the node for beside its datasets' own (pool discovery, bridge dialects). */
  readonly extraTopics?: readonly Hex[];
  /** Coverage datasets its runs record beside its datasets' own (pools discovered, internal transfers traced): a reorg rolls them back too. */
  readonly extraCoverage?: readonly string[];
  /** Its rows in the demo dataset (none when absent). */
  readonly demo?: ProtocolDemo;
}

/**
 * Checks a protocols file's entry for one network against the protocol's
 * schema and gives it back as checked (unknown properties dropped), or
 * reports why it does not fit (`fail` throws).
 */
export type ReadEntry = (at: string, entry: unknown, fail: (message: string) => never) => unknown;

/** The protocols file as loaded: section (protocol name) → network code → the entry as checked against its protocol's schema. */
export type ProtocolSettings = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A protocol as the registry holds it, whatever its configuration's type. */
export interface EvmProtocol {
  readonly name: string;
  readonly summary: string;
  readonly endpoints: readonly ChainEndpoint[];
  readonly extraTopics: readonly Hex[];
  readonly extraCoverage: readonly string[];
  readonly demo: ProtocolDemo | undefined;
  /** Present when the protocol has a section in the protocols file. */
  readonly readEntry: ReadEntry | undefined;
  /** Plans a network given the protocol's configured entry there (as `readEntry` gave it back), if any. */
  plan(network: string, endpoints: readonly ChainEndpoint[], entry: unknown): ProtocolPlan;
}

// Unknown keys are dropped, so a protocol sees only what its schema declares.
const ajv = new Ajv({ verbose: true, removeAdditional: 'all', allErrors: false });

/** `/0/pool` → `[0].pool`: the path as the file's reader writes it. */
const pathOf = (instancePath: string) =>
  instancePath
    .split('/')
    .slice(1)
    .map((k) => (/^\d+$/.test(k) ? `[${k}]` : `.${k}`))
    .join('');

const described = (schema: unknown): string | undefined => {
  if (typeof schema !== 'object' || schema === null || !('description' in schema)) return undefined;
  return typeof schema.description === 'string' ? schema.description : undefined;
};

function messageOf(at: string, e: ErrorObject): string {
  if (e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    const parent: unknown = e.parentSchema;
    const properties = typeof parent === 'object' && parent !== null && 'properties' in parent ? parent.properties : undefined;
    const property = typeof properties === 'object' && properties !== null && missing in properties ? Object.entries(properties).find(([k]) => k === missing)?.[1] : undefined;
    return `${at}${pathOf(e.instancePath)}.${missing} must be ${described(property) ?? 'given'}`;
  }
  const description = described(e.parentSchema);
  return `${at}${pathOf(e.instancePath)} ${description ? `must be ${description}` : (e.message ?? 'is not valid')}, got ${JSON.stringify(e.data)}`;
}

/** A protocol with its configuration's type, as its folder exports it. */
export interface Protocol<C> extends EvmProtocol {
  /** The protocol's entry for a network in loaded settings, typed. */
  configOf(settings: ProtocolSettings, network: string): C | undefined;
}

const fail = (message: string): never => {
  throw new Error(message);
};

export function defineProtocol<In = never, C = undefined>(spec: ProtocolSpec<In, C>): Protocol<C> {
  const config = spec.config;
  // Compiled when a protocols file is first read, not when the catalog loads: a server that reads none never pays for it.
  let compiled: ValidateFunction<In> | undefined;
  const check = (at: string, entry: unknown, fail: (message: string) => never): In => {
    if (!config) return fail(`${at}: ${spec.name} has no contracts to configure`);
    compiled ??= ajv.compile<In>(config.schema);
    const validate = compiled;
    if (!validate(entry)) return fail(messageOf(at, validate.errors?.[0] ?? { keyword: '', instancePath: '', schemaPath: '', params: {}, message: 'is not valid' }));
    return entry;
  };
  // A loaded entry was checked already; checking it again gives it back with its type, for `read`.
  const entryOf = (entry: unknown, network: string): C | undefined => (entry === undefined || !config ? undefined : config.read(check(`${spec.name}.${network}`, entry, fail)));
  return {
    name: spec.name,
    summary: spec.summary,
    endpoints: spec.endpoints,
    extraTopics: spec.extraTopics ?? [],
    extraCoverage: spec.extraCoverage ?? [],
    demo: spec.demo,
    readEntry: config ? check : undefined,
    plan: (network, endpoints, entry) => spec.plan({ network, endpoints, config: entryOf(entry, network) }),
    configOf: (settings, network) => entryOf(settings[spec.name]?.[network], network),
  };
}

/** The dataset id of a protocol's event; throws for one its catalog does not declare (decoders look theirs up when loaded). */
export function datasetOf(endpoints: readonly ChainEndpoint[], event: string): string {
  const e = endpoints.find((x) => x.event === event);
  if (!e) throw new Error(`catalog: no dataset for event ${event} among ${endpoints.map((x) => x.id).join(', ')}`);
  return e.id;
}
