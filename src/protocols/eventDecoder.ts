/**
 * Decoding of one ABI event, compiled once per event. viem's `decodeEventLog`
 * finds the ABI item by hashing every candidate's signature on every call
 * (about 15 µs per log), and its codec walks the parameter list with a cursor
 * over bytes converted from the hex. A decoder built once per event keeps the
 * selector and, for each value type (address, bool, intN, uintN, bytesN), a
 * reader of its own 64 hex digits of the topic or data word: no bytes, no
 * cursor, no per-log dispatch on the type. Data with dynamic or nested values
 * (string, bytes, arrays, tuples) still goes through viem's codec. The results
 * are viem's (eventDecoder.test.ts holds the two side by side for every event
 * we read and for every value type); addresses come out lowercase, the store's
 * form.
 */
import { createRequire } from 'node:module';
import type { AbiEvent, AbiParameter, AbiParameterToPrimitiveType, decodeAbiParameters } from 'viem';
import { eventSelector } from './eventSelector.ts';
import type { Hex, RpcLog } from './evmNode.ts';

let codec: typeof decodeAbiParameters | undefined;
/**
 * viem's codec, loaded by the first decoder of an event whose data is not
 * plain words (a bridge's `bytes`, a custom event's string or array), which
 * only ingestion creates. Every catalog loads the protocols' decoders, the
 * server's too, and viem held there for good cost the idle server about
 * 14 MiB. Synchronous, as decoders are made: `require` loads viem's CommonJS
 * build.
 */
function viemCodec(): typeof decodeAbiParameters {
  codec ??= createRequire(import.meta.url)('viem').decodeAbiParameters;
  if (!codec) throw new Error('viem has no decodeAbiParameters');
  return codec;
}

/**
 * A log's arguments by input name, typed from the event's ABI when it is
 * known at compile time (`parseAbiItem('event …')`): `uint256` is a bigint,
 * `address` a hex string, `uint8` a number, as viem's codec returns them.
 */
export type EventArgs<E extends AbiEvent = AbiEvent> = AbiEvent extends E
  ? Readonly<Record<string, unknown>>
  : { readonly [P in E['inputs'][number] as P['name'] & string]: AbiParameterToPrimitiveType<P> };

export interface EventDecoder<E extends AbiEvent = AbiEvent> {
  readonly event: E;
  readonly selector: Hex;
  /** The log's arguments by name, or null when the log does not have this event's shape (topic count, data size). */
  decode(log: Pick<RpcLog, 'topics' | 'data'>): EventArgs<E> | null;
}

/** Reads one value from a log: its topics, its data, and (when the data needed viem's codec) the decoded data values. */
type Reader = (topics: readonly Hex[], data: string, values: readonly unknown[]) => unknown;

export function createEventDecoder<const E extends AbiEvent>(event: E): EventDecoder<E> {
  const selector = eventSelector(event);
  const indexed = event.inputs.filter((p) => p.indexed);
  const data = event.inputs.filter((p) => !p.indexed);
  // Fixed-size arrays and tuples of static values sit in the head in place, wider than one word.
  const headSize = data.reduce((n, p) => n + (isStatic(p) ? staticSize(p) : 32), 0);
  const staticDataSize = data.every((p) => isStatic(p)) ? headSize : null;
  // Only data of plain words is read word by word; anything else is decoded whole by viem.
  const wordsOnly = data.every((p) => wordReader(p) !== null);
  let t = 1;
  let d = 0;
  const readers: Reader[] = event.inputs.map((p) => {
    if (p.indexed) {
      const at = t++;
      const word = wordReader(p);
      // A string, bytes, an array or a tuple (even of a fixed size) is in its topic only as its keccak256 hash.
      if (p.type === 'string' || p.type === 'bytes' || p.type.endsWith(']') || p.type === 'tuple' || !word) return (topics) => topics[at];
      return (topics) => word(topics[at] ?? '', 2);
    }
    const at = d++;
    const word = wordReader(p);
    if (wordsOnly && word) {
      const offset = 2 + 64 * at;
      return (_topics, hex) => word(hex, offset);
    }
    return (_topics, _hex, values) => (p.type === 'address' ? String(values[at]).toLowerCase() : values[at]);
  });
  const decodeData = data.length && !wordsOnly ? viemCodec() : null;
  // Each value under its name, or its position when the ABI leaves it unnamed.
  const fields = readers.map((read, i) => ({ name: event.inputs[i]?.name || String(i), read }));
  return {
    event,
    selector,
    decode(log) {
      if (log.topics[0] !== selector || log.topics.length !== indexed.length + 1) return null;
      const bytes = (log.data.length - 2) / 2;
      if (staticDataSize !== null ? bytes !== staticDataSize : bytes < headSize) return null;
      try {
        const values = decodeData ? decodeData(data, log.data) : NONE;
        const out: Record<string, unknown> = {};
        for (const f of fields) out[f.name] = f.read(log.topics, log.data, values);
        return out as EventArgs<E>;
      } catch {
        return null;
      }
    },
  };
}

const NONE: readonly unknown[] = [];
const HEX_WORD = /^[0-9a-fA-F]{64}$/;
const FALSE_WORD = '0'.repeat(64);
const TRUE_WORD = `${'0'.repeat(63)}1`;

/**
 * A reader of one 32-byte word at `offset` in a hex string, for a value type,
 * giving what viem's codec gives: an integer of up to 48 bits as a number,
 * wider ones as a bigint (signed ones in two's complement over the word), a
 * bool only from 0 or 1 (anything else is not this event), bytesN as its
 * first N bytes. Null for types that are not one word.
 */
function wordReader(p: AbiParameter): ((hex: string, offset: number) => unknown) | null {
  const word = (hex: string, offset: number): string => {
    const w = hex.slice(offset, offset + 64);
    if (!HEX_WORD.test(w)) throw new Error('not a 32-byte word');
    return w;
  };
  if (p.type === 'address') return (hex, offset) => `0x${word(hex, offset).slice(24).toLowerCase()}`;
  if (p.type === 'bool')
    return (hex, offset) => {
      const w = word(hex, offset);
      if (w === FALSE_WORD) return false;
      if (w === TRUE_WORD) return true;
      throw new Error('not a bool');
    };
  const int = /^(u?)int(\d*)$/.exec(p.type);
  if (int) {
    const signed = int[1] === '';
    const small = Number(int[2] || '256') <= 48;
    return (hex, offset) => {
      const unsigned = BigInt(`0x${word(hex, offset)}`);
      const v = signed ? BigInt.asIntN(256, unsigned) : unsigned;
      return small ? Number(v) : v;
    };
  }
  const fixed = /^bytes(\d+)$/.exec(p.type);
  if (fixed) {
    const digits = 2 * Number(fixed[1]);
    return (hex, offset) => `0x${word(hex, offset).slice(0, digits).toLowerCase()}`;
  }
  return null;
}

const FIXED_ARRAY = /^(.*)\[(\d+)\]$/;

/** The element of an array type, as a parameter (`uint8[2][]` → `uint8[2]`). */
const elementOf = (p: AbiParameter, inner: string): AbiParameter => ({ ...p, type: inner });

/** Whether the ABI encodes the value in place (a fixed size) rather than behind an offset. */
function isStatic(p: AbiParameter): boolean {
  if (p.type === 'string' || p.type === 'bytes' || p.type.endsWith('[]')) return false;
  const fixed = FIXED_ARRAY.exec(p.type);
  if (fixed) return isStatic(elementOf(p, fixed[1] ?? ''));
  if (p.type === 'tuple') return 'components' in p && p.components.every(isStatic);
  return true;
}

/** The bytes a static value takes in place. */
function staticSize(p: AbiParameter): number {
  const fixed = FIXED_ARRAY.exec(p.type);
  if (fixed) return Number(fixed[2]) * staticSize(elementOf(p, fixed[1] ?? ''));
  if (p.type === 'tuple' && 'components' in p) return p.components.reduce((n, c) => n + staticSize(c), 0);
  return 32;
}

/** The lowercase 0x address of a topic or address word. */
export const topicAddress = (topic: Hex): Hex => `0x${topic.slice(26).toLowerCase()}`;
