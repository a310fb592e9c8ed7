/**
 * Operator-defined event datasets (docs/custom-datasets.md): a JSON file that
 * names a dataset, the contracts to read on each network and the ABI events
 * to keep. This module turns the file into a checked, typed declaration;
 * customEndpoints.ts derives the catalog entries from it.
 *
 * Every check runs here, before anything is ingested or stored, so that an
 * operator learns of a mistake from the command that read the file.
 */
import { parseAbiItem, type AbiEvent, type AbiParameter } from 'abitype';

/** One input of an event: an ABI parameter that may be indexed. */
type AbiEventParameter = AbiEvent['inputs'][number];
import { messageOf } from '../../utils/errorText.ts';
import { compileSchema } from '../../utils/jsonSchema.ts';
import { networkInfo } from '../networks.ts';
import type { ColumnType, StoredType } from '../types.ts';
import { InvalidInputError } from '../../errors/chainqError.ts';

/** How one ABI input is kept and served. */
export type CustomValueKind =
  | 'address'
  | 'bool'
  | 'string'
  | 'bytes'
  /** A signed or unsigned integer of at most 64 bits: an engine integer, a JSON number. */
  | 'int'
  /** An integer wider than 64 bits: exact in the store, served as decimal text. */
  | 'wide_int'
  /** A dynamic value of an indexed input: only its keccak256 hash is in the log. */
  | 'topic_hash'
  /** A non-indexed array or tuple: served as JSON text. */
  | 'json';

export interface CustomInput {
  /** The column name: the ABI input's own name (`arg<i>` for an unnamed one). */
  readonly name: string;
  readonly abiType: string;
  readonly indexed: boolean;
  readonly kind: CustomValueKind;
  readonly stored: StoredType;
  readonly output: ColumnType;
}

export interface CustomEvent {
  /** The path segment: the event name in snake_case. */
  readonly event: string;
  readonly abi: AbiEvent;
  /** `Deposited(address,uint256)`. */
  readonly signature: string;
  readonly inputs: readonly CustomInput[];
}

export interface CustomNetwork {
  /** Lowercase 0x addresses, sorted, without repeats. */
  readonly addresses: readonly `0x${string}`[];
  readonly fromBlock: number;
}

export interface CustomDataset {
  readonly name: string;
  readonly events: readonly CustomEvent[];
  /** By network code (uppercase). */
  readonly networks: Readonly<Record<string, CustomNetwork>>;
}

/** A declaration the service cannot accept; the message says what to change. */
export class CustomDeclarationError extends InvalidInputError {}

const NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Column names every row already has or that `verbose=true` adds. The store's
 * identifiers ignore case, so an input may not differ from one by case only.
 */
export const RESERVED_COLUMNS: readonly string[] = ['network', 'block_number', 'log_index', 'time', 'tx_hash', 'tx_id', 'name', 'contract_address'];

/** `Deposited` → `deposited`, `WithdrawalRequested` → `withdrawal_requested`, `ERC20Moved` → `erc20_moved`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** A function declaration, so that a call narrows what it guards (`if (…) fail(…)`). */
function fail(message: string): never {
  throw new CustomDeclarationError(message);
}

/** A JSON object (not an array, not null), read field by field. */
const isObject = compileSchema<Readonly<Record<string, unknown>>>({ type: 'object' });
const isNames = compileSchema<readonly string[]>({ type: 'array', minItems: 1, items: { type: 'string' } });
const isAddresses = compileSchema<readonly `0x${string}`[]>({ type: 'array', minItems: 1, items: { type: 'string', pattern: ADDRESS.source } });
const lowerHex = (a: `0x${string}`): `0x${string}` => `0x${a.slice(2).toLowerCase()}`;

/** What one ABI type becomes. */
function typeOf(p: AbiEventParameter): Pick<CustomInput, 'kind' | 'stored' | 'output'> {
  const t = p.type;
  const dynamic = t === 'string' || t === 'bytes' || t.endsWith(']') || t.startsWith('tuple');
  if (p.indexed && dynamic) return { kind: 'topic_hash', stored: 'string', output: 'string' };
  if (t.endsWith(']') || t.startsWith('tuple')) return { kind: 'json', stored: 'string', output: 'string' };
  if (t === 'address') return { kind: 'address', stored: 'string', output: 'string' };
  if (t === 'bool') return { kind: 'bool', stored: 'boolean', output: 'boolean' };
  if (t === 'string') return { kind: 'string', stored: 'string', output: 'string' };
  if (/^bytes([1-9]|[12][0-9]|3[0-2])?$/.test(t)) return { kind: 'bytes', stored: 'string', output: 'string' };
  const int = /^(u?)int(\d*)$/.exec(t);
  if (int) {
    const bits = int[2] ? Number(int[2]) : 256;
    if (bits < 8 || bits > 256 || bits % 8 !== 0) fail(`${t} is not an ABI integer type`);
    const unsigned = int[1] === 'u';
    if (bits <= 64) return { kind: 'int', stored: unsigned && bits === 64 ? 'uint64' : 'int64', output: 'integer' };
    return { kind: 'wide_int', stored: unsigned ? 'uint256' : 'int256', output: 'string' };
  }
  return fail(`ABI type ${t} is not supported`);
}

/**
 * `uint` and `int` are `uint256` and `int256`; the event's selector hashes the
 * full names, so an input left as `uint` would select no log at all.
 */
function canonical<T extends { type?: unknown; components?: unknown }>(p: T): T {
  const type = typeof p.type === 'string' ? p.type.replace(/^(u?int)(?=$|\[)/, '$1256') : p.type;
  const components = Array.isArray(p.components) ? p.components.map((c: unknown) => (typeof c === 'object' && c !== null ? canonical(c) : c)) : p.components;
  return { ...p, type, ...(components === undefined ? {} : { components }) };
}

/** An ABI item as solc or viem print it (an object), or as human-readable text (`event Deposited(address indexed who, uint256 amount)`). */
function abiItem(item: unknown, i: number): AbiEvent | null {
  if (typeof item === 'string') {
    let parsed: ReturnType<typeof parseAbiItem>;
    try {
      parsed = parseAbiItem(item);
    } catch (e) {
      return fail(`abi[${i}]: ${messageOf(e).split('\n')[0]}`);
    }
    return parsed.type === 'event' ? parsed : null;
  }
  if (!isObject(item)) return fail(`abi[${i}] is neither an ABI object nor text`);
  const o = item;
  if (o.type !== 'event') return null;
  if (typeof o.name !== 'string' || !IDENT.test(o.name)) return fail(`abi[${i}]: an event needs a name of letters, digits and _`);
  if (!Array.isArray(o.inputs)) return fail(`abi[${i}] (${o.name}): inputs must be an array`);
  const name = o.name;
  const inputs = o.inputs.map((p: unknown, j: number) => {
    const q = isObject(p) ? p : {};
    if (typeof q.type !== 'string') return fail(`abi[${i}] (${name}): input ${j} has no type`);
    return { ...canonical(q), name: typeof q.name === 'string' ? q.name : '', indexed: q.indexed === true } as AbiEventParameter;
  });
  return { type: 'event', name: o.name, inputs, anonymous: o.anonymous === true } as AbiEvent;
}

/**
 * The canonical signature topic0 is the hash of: the name and the input types,
 * tuples spelled out as their components' types, no names, no spaces. Written
 * here rather than taken from viem, whose whole index (some 55 MiB resident)
 * the server would otherwise load at start only for this.
 */
function eventSignature(abi: AbiEvent): string {
  const typeOf = (p: AbiParameter): string => {
    if (!p.type.startsWith('tuple')) return p.type;
    if (!('components' in p)) throw new Error(`input ${p.name ?? ''} is a tuple without components`);
    return `(${p.components.map(typeOf).join(',')})${p.type.slice('tuple'.length)}`;
  };
  return `${abi.name}(${abi.inputs.map(typeOf).join(',')})`;
}

function customEvent(abi: AbiEvent): CustomEvent {
  const where = `event ${abi.name}`;
  if (abi.anonymous) fail(`${where} is anonymous: it has no topic0 to select its logs by`);
  if (abi.inputs.filter((p) => p.indexed).length > 3) fail(`${where} has more than three indexed inputs`);
  let signature: string;
  try {
    signature = eventSignature(abi);
  } catch (e) {
    return fail(`${where}: ${messageOf(e).split('\n')[0]}`);
  }
  const seen = new Set<string>();
  const inputs = abi.inputs.map((p, i): CustomInput => {
    const name = p.name || `arg${i}`;
    if (!IDENT.test(name)) fail(`${where}: input name ${name} is not letters, digits and _`);
    const folded = name.toLowerCase();
    if (RESERVED_COLUMNS.includes(folded)) fail(`${where}: input ${name} would hide the ${folded} column every row has; rename it in the ABI you declare`);
    if (seen.has(folded)) fail(`${where}: two inputs are named ${name} (names ignore case)`);
    seen.add(folded);
    return { name, abiType: p.type, indexed: p.indexed === true, ...typeOf(p) };
  });
  return { event: snakeCase(abi.name), abi, signature: signature.replace(/^event /, ''), inputs };
}

/**
 * Checks a declaration file's content. `reservedParams` are the query
 * parameters every custom route has: an address input becomes a filter
 * parameter of its own name, so it may not take one of theirs.
 */
export function parseCustomDataset(json: unknown, reservedParams: readonly string[] = []): CustomDataset {
  if (!isObject(json)) return fail('a custom dataset is a JSON object with name, abi and networks');
  const o = json;
  const name = o.name;
  if (typeof name !== 'string' || !NAME.test(name) || name.length > 40) {
    return fail(`name must be lowercase letters and digits in words joined by single _, at most 40 characters (got ${JSON.stringify(name)})`);
  }
  if (!Array.isArray(o.abi) || o.abi.length === 0) return fail(`${name}: abi must be a non-empty array of event fragments`);
  const declared = o.abi.map(abiItem).filter((e): e is AbiEvent => e !== null);
  if (declared.length === 0) return fail(`${name}: abi holds no event`);

  let chosen = declared;
  if (o.events !== undefined) {
    if (!isNames(o.events)) return fail(`${name}: events must be a non-empty array of event names`);
    const wanted = new Set(o.events);
    for (const w of wanted) if (!declared.some((e) => e.name === w)) fail(`${name}: event ${w} is not in abi (it has ${[...new Set(declared.map((e) => e.name))].join(', ')})`);
    chosen = declared.filter((e) => wanted.has(e.name));
  }
  const events = chosen.map(customEvent);
  const bySegment = new Map<string, CustomEvent>();
  for (const e of events) {
    const other = bySegment.get(e.event);
    if (other) fail(`${name}: ${other.signature} and ${e.signature} would both be served at events/${e.event}; keep one with "events" or declare them in two datasets`);
    bySegment.set(e.event, e);
    for (const input of e.inputs) {
      if (input.kind === 'address' && reservedParams.includes(input.name))
        fail(`${name}: input ${input.name} of ${e.signature} is an address, filtered by a parameter of its name, which is already a parameter of every route; rename it in the ABI`);
    }
  }

  if (!isObject(o.networks) || Object.keys(o.networks).length === 0) {
    return fail(`${name}: networks must map network codes to {"addresses": [...], "from_block": n}`);
  }
  const networks: Record<string, CustomNetwork> = {};
  for (const [key, value] of Object.entries(o.networks)) {
    const code = key.toUpperCase();
    const info = networkInfo(code);
    if (!info || info.chainId === null) fail(`${name}: ${key} is not an EVM network`);
    if (networks[code]) fail(`${name}: network ${code} is declared twice`);
    const n = isObject(value) ? value : {};
    const addresses = n.addresses;
    if (!isAddresses(addresses)) return fail(`${name}: networks.${key}.addresses must be a non-empty array of 0x addresses (40 hex digits)`);
    const from = n.from_block ?? 0;
    if (typeof from !== 'number' || !Number.isSafeInteger(from) || from < 0) return fail(`${name}: networks.${key}.from_block must be a block number (an integer ≥ 0)`);
    networks[code] = { addresses: [...new Set(addresses.map(lowerHex))].sort(), fromBlock: from };
  }
  return { name, events, networks };
}

/** The dataset id of one event: `evm/custom/vault/deposited`. */
export const customDatasetId = (name: string, event: string): string => `evm/custom/${name}/${event}`;

/** The table of one event. `__` cannot occur in a dataset name, so two declarations never share a table. */
export const customTableName = (name: string, event: string): string => `evm_custom_${name}__${event}`;

/** The declaration as stored and listed: the file's own shape, normalised. */
export function customDatasetJson(d: CustomDataset): { name: string; abi: AbiEvent[]; networks: Record<string, { addresses: string[]; from_block: number }> } {
  return {
    name: d.name,
    abi: d.events.map((e) => e.abi),
    networks: Object.fromEntries(Object.entries(d.networks).map(([k, n]) => [k, { addresses: [...n.addresses], from_block: n.fromBlock }])),
  };
}
