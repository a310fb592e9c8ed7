/**
 * The decoders of an operator-defined dataset (docs/custom-datasets.md): the
 * rows of each declared event, one per log from a declared contract, each
 * ABI input in the column the declaration derived for it. An event whose
 * data holds only one-word values (its indexed inputs are topics anyway) is
 * decoded by the engine from the batch's log file, described by where each
 * value sits; the others (strings, bytes, arrays, tuples in the data) by the
 * generic JS decoder below.
 */
import { customDatasetId, customTableName, type CustomDataset, type CustomEvent, type CustomInput } from '../../../catalog/custom/declaration.ts';
import type { AppendValue } from '../../../store/types.ts';
import type { Hex } from '../../rpc/getLogs.ts';
import { createEventDecoder, type EventDecoder } from '../../../protocols/eventDecoder.ts';
import type { EngineDecoder, JsDecoder, LogFileEvent, LogFileValue, LogSlot, ProtocolDecoder } from '../../../protocols/types.ts';

type AbiParam = { readonly type: string; readonly components?: readonly AbiParam[] };

/**
 * An array or tuple value in the store's forms: addresses and bytes as
 * lowercase hex, integers of every width as decimal strings (so that none
 * loses digits in JSON), tuples as objects by component name (by position
 * when unnamed).
 */
function plain(p: AbiParam, v: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(p.type);
  if (array) return (v as readonly unknown[]).map((x) => plain({ ...p, type: array[1]! }, x));
  if (p.type === 'tuple') {
    const parts = p.components ?? [];
    const values = Array.isArray(v) ? v : parts.map((c) => (v as Record<string, unknown>)[(c as { name?: string }).name ?? '']);
    return Object.fromEntries(parts.map((c, i) => [(c as { name?: string }).name || String(i), plain(c, values[i])]));
  }
  // By the ABI type, not viem's JS type (a number up to 48 bits, a bigint above): every width reads alike.
  if (/^u?int\d*$/.test(p.type)) return String(v);
  if (p.type === 'address' || p.type.startsWith('bytes')) return String(v).toLowerCase();
  return v;
}

/** How one decoded value (viem's form) becomes what the store keeps, chosen once per input rather than per log. */
function storedForm(input: CustomInput, param: AbiParam): (v: unknown) => AppendValue {
  switch (input.kind) {
    case 'address':
    case 'topic_hash':
    case 'bytes':
      return (v) => String(v).toLowerCase();
    case 'bool':
      return Boolean;
    case 'string':
      return String;
    case 'int':
    case 'wide_int':
      // viem gives small integers as numbers and wide ones as bigints; the store takes both as bigint.
      return (v) => BigInt(v as number | bigint);
    case 'json':
      return (v) => JSON.stringify(plain(param, v));
  }
}

interface DeclaredEvent {
  readonly dataset: string;
  readonly decoder: EventDecoder;
  /** Per input: its column, the decoder's name for it, and its stored form. */
  readonly columns: readonly { readonly column: string; readonly arg: string; readonly stored: (v: unknown) => AppendValue }[];
}

/** How the engine reads one input from its slot, or null when it is not one word (a dynamic value in the data). */
function slotValue(input: CustomInput, at: LogSlot): LogFileValue | null {
  if (input.kind === 'topic_hash') return 'topic' in at ? { type: 'topic', topic: at.topic } : null;
  if (input.abiType === 'address') return { type: 'address', at };
  if (input.abiType === 'bool') return { type: 'bool', at };
  const bytes = /^bytes(\d+)$/.exec(input.abiType);
  if (bytes) return { type: 'bytes', size: Number(bytes[1]), at };
  // Declarations are canonical: `uint` is spelled `uint256`.
  const int = /^(u?)int(\d+)$/.exec(input.abiType);
  if (int) return { type: int[1] ? 'uint' : 'int', bits: Number(int[2]), at };
  return null;
}

/** The event as the engine decodes it, or null when a value of its data is not one word. */
function logFileEvent(d: CustomDataset, e: CustomEvent, selector: Hex, contracts: readonly Hex[]): LogFileEvent | null {
  let topic = 1;
  let word = 0;
  const columns: LogFileEvent['columns'][number][] = [];
  for (const input of e.inputs) {
    const value = slotValue(input, input.indexed ? { topic: topic++ } : { word: word++ });
    if (!value) return null;
    columns.push({ name: input.name, value });
  }
  return { table: customTableName(d.name, e.event), selector, contracts, topics: topic, words: word, columns };
}

/** The decoders of one dataset on one network: one per event the engine decodes, and a JS decoder for the rest. */
export function createAbiDecoders(d: CustomDataset, network: string): ProtocolDecoder[] {
  const declared = d.networks[network];
  if (!declared) throw new Error(`${d.name} declares no contracts on ${network}`);
  const byEngine: EngineDecoder[] = [];
  const inJs: CustomEvent[] = [];
  for (const e of d.events) {
    const selector = createEventDecoder(e.abi).selector;
    const event = logFileEvent(d, e, selector, declared.addresses);
    if (!event) {
      inJs.push(e);
      continue;
    }
    byEngine.push({ protocol: `custom/${d.name}`, datasets: [customDatasetId(d.name, e.event)], topic0: [selector], addresses: declared.addresses, engine: { selector, event } });
  }
  return inJs.length ? [...byEngine, createAbiDecoder(d, network, inJs)] : byEngine;
}

/** The JS decoder of `events` of one dataset on one network; the caller checks that the network is declared. */
export function createAbiDecoder(d: CustomDataset, network: string, events: readonly CustomEvent[] = d.events): JsDecoder {
  const declared = d.networks[network];
  if (!declared) throw new Error(`${d.name} declares no contracts on ${network}`);
  const contracts = new Set<string>(declared.addresses);
  const bySelector = new Map<Hex, DeclaredEvent>();
  for (const e of events) {
    const decoder = createEventDecoder(e.abi);
    const columns = e.abi.inputs.flatMap((param, i) => {
      const input = e.inputs[i];
      return input ? [{ column: input.name, arg: param.name || String(i), stored: storedForm(input, param) }] : [];
    });
    bySelector.set(decoder.selector, { dataset: customDatasetId(d.name, e.event), decoder, columns });
  }
  return {
    protocol: `custom/${d.name}`,
    datasets: [...bySelector.values()].map((e) => e.dataset),
    topic0: [...bySelector.keys()],
    addresses: declared.addresses,
    tokensOf: () => [],
    needsSender: () => false,
    decode(log, ctx) {
      const address = log.address.toLowerCase();
      if (!contracts.has(address)) return;
      const e = bySelector.get(log.topics[0] as Hex);
      // A log with the selector but another shape (topic count, data size) is another contract's event of the same name.
      const args = e?.decoder.decode(log);
      if (!e || !args) return;
      const row: Record<string, AppendValue> = { ...ctx.logKey(log), contract_address: address };
      for (const c of e.columns) row[c.column] = c.stored(args[c.arg]);
      ctx.emit(e.dataset, row);
    },
  };
}
