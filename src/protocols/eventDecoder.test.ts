/**
 * The prebuilt event decoders agree with viem's decodeEventLog on every event
 * ingestion reads, and refuse logs of another shape.
 */
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, keccak256, parseAbiItem, toEventSelector, type AbiEvent, type AbiParameter, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { chainEndpoints } from '../catalog/index.ts';
import { DEX_ABI } from './dex_v3/catalog.ts';
import { ERC20_ABI } from './erc20/catalog.ts';
import { transferDecoder } from './erc20/decoder.ts';
import { LENDING_ABI } from './lending_v3/catalog.ts';
import { STAKING_BRIDGE_ABI } from './staking/catalog.ts';
import { createEventDecoder } from './eventDecoder.ts';

/** A deterministic value of each ABI type, varied by `seed`. */
function sample(p: AbiParameter, seed: number): unknown {
  const t = p.type;
  if (t === 'address') return `0x${(seed * 7919 + 17).toString(16).padStart(40, 'a')}`;
  if (t === 'bool') return seed % 2 === 0;
  if (t === 'bytes') return `0x${'ab'.repeat(seed % 5)}`;
  const m = /^(u?)int(\d+)$/.exec(t);
  if (m) {
    const bits = BigInt(m[2]!);
    const max = m[1] === 'u' ? 2n ** bits - 1n : 2n ** (bits - 1n) - 1n;
    const v = (max / BigInt(seed + 2)) * (m[1] === '' && seed % 3 === 0 ? -1n : 1n);
    return v;
  }
  throw new Error(`no sample for ${t}`);
}

function encode(event: AbiEvent, seed: number): { topics: Hex[]; data: Hex; args: Record<string, unknown> } {
  const args = Object.fromEntries(event.inputs.map((p, i) => [p.name!, sample(p, seed + i)]));
  const indexed = Object.fromEntries(event.inputs.filter((p) => p.indexed).map((p) => [p.name!, args[p.name!]]));
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args: indexed } as never) as Hex[];
  const dataParams = event.inputs.filter((p) => !p.indexed);
  const data = encodeAbiParameters(
    dataParams,
    dataParams.map((p) => args[p.name!]),
  );
  return { topics, data, args };
}

const lowerAddresses = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? v.toLowerCase() : v]));

/** Every event ingestion reads: each catalog dataset's ABI, pool discovery's, and every bridge dialect's. */
const ALL: AbiEvent[] = [
  ...new Set<AbiEvent>([...chainEndpoints.flatMap((e) => (e.abi ? [e.abi] : [])), DEX_ABI.poolCreated, ...Object.values(STAKING_BRIDGE_ABI).flatMap((dialect) => Object.values(dialect).flat())]),
];
const TRANSFER_EVENT = ERC20_ABI.transfer;
const LENDING_EVENTS = LENDING_ABI;

describe('createEventDecoder', () => {
  it.each(ALL.map((e) => [`${e.name}(${e.inputs.map((i) => i.type).join(',')})`, e] as const))('decodes %s exactly as viem decodeEventLog does', (_name, event) => {
    const d = createEventDecoder(event);
    for (let seed = 0; seed < 6; seed++) {
      const log = encode(event, seed);
      const viem = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args as Record<string, unknown>;
      expect(d.decode(log)).toEqual(lowerAddresses(viem));
    }
  });

  it('returns null for a log of another shape: wrong selector, missing topic, short data', () => {
    const d = createEventDecoder(LENDING_EVENTS.deposit);
    const log = encode(LENDING_EVENTS.deposit, 1);
    expect(d.decode(log)).not.toBeNull();
    expect(d.decode({ ...log, topics: [transferDecoder.selector, ...log.topics.slice(1)] })).toBeNull();
    expect(d.decode({ ...log, topics: log.topics.slice(0, 3) })).toBeNull();
    expect(d.decode({ ...log, data: log.data.slice(0, 66) as Hex })).toBeNull();
  });
});

describe('createEventDecoder word by word', () => {
  const TYPES = ['address', 'bool', 'uint8', 'int8', 'uint48', 'int48', 'uint56', 'int56', 'uint256', 'int256', 'int24', 'bytes1', 'bytes20', 'bytes32'];
  const EXTREMES = (t: string, seed: number): unknown => {
    const m = /^(u?)int(\d+)$/.exec(t);
    if (m) {
      const bits = BigInt(m[2]!);
      const [min, max] = m[1] === 'u' ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
      const v = [min, max, 0n, m[1] === 'u' ? 1n : -1n][seed % 4]!;
      return bits <= 48n ? Number(v) : v;
    }
    if (t === 'address') return `0x${(seed * 7919 + 17).toString(16).padStart(40, 'f')}`;
    if (t === 'bool') return seed % 2 === 1;
    const b = /^bytes(\d+)$/.exec(t);
    if (b) return `0x${(seed % 2 ? 'ff' : 'A0').repeat(Number(b[1]))}`;
    throw new Error(t);
  };

  it.each(TYPES)('decodes %s in the data and in a topic exactly as viem decodeEventLog does, at its extremes', (type) => {
    const event = parseAbiItem(`event One(${type} indexed k, ${type} v, uint256 n)`) as AbiEvent;
    const d = createEventDecoder(event);
    for (let seed = 0; seed < 4; seed++) {
      const k = EXTREMES(type, seed);
      const v = EXTREMES(type, seed + 1);
      const log = {
        topics: encodeEventTopics({ abi: [event], eventName: 'One', args: { k } } as never) as Hex[],
        data: encodeAbiParameters(event.inputs.slice(1), [v, 7n]),
      };
      const viem = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args as Record<string, unknown>;
      expect(d.decode(log)).toEqual(lowerAddresses(viem));
    }
  });

  it('refuses a bool word other than 0 or 1 and a word that is not hex, in the data or a topic', () => {
    const event = parseAbiItem('event Flag(bool indexed k, bool v)') as AbiEvent;
    const d = createEventDecoder(event);
    const word = (last: string) => `0x${'0'.repeat(63)}${last}` as Hex;
    expect(d.decode({ topics: [toEventSelector(event), word('1')], data: word('0') })).toEqual({ k: true, v: false });
    expect(d.decode({ topics: [toEventSelector(event), word('1')], data: word('2') })).toBeNull();
    expect(d.decode({ topics: [toEventSelector(event), word('2')], data: word('1') })).toBeNull();
    expect(d.decode({ topics: [toEventSelector(event), word('1')], data: word('g') })).toBeNull();
  });
});

describe('createEventDecoder on arrays and tuples', () => {
  const A = '0x00000000000000000000000000000000000000aa';
  const B = '0x00000000000000000000000000000000000000bb';

  it('decodes fixed-size arrays of static values, which sit in place wider than one word, as viem does', () => {
    const event = parseAbiItem('event Fixed(address[2] pair, uint8[2][2] grid, int8 last)') as AbiEvent;
    const values = [
      [A, B],
      [
        [0, 255],
        [1, 2],
      ],
      -128,
    ];
    const log = { topics: [toEventSelector(event)] as Hex[], data: encodeAbiParameters(event.inputs, values) };
    expect((log.data.length - 2) / 2).toBe(32 * 7);
    const viem = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args as Record<string, unknown>;
    expect(createEventDecoder(event).decode(log)).toEqual(viem);
    expect(createEventDecoder(event).decode({ ...log, data: log.data.slice(0, -64) as Hex })).toBeNull();
  });

  it('decodes an indexed array or tuple, of fixed size or not, as the hash its topic holds, as viem does', () => {
    const event = parseAbiItem('event Hashed(uint8[2] indexed duo, (uint256 a, bool b) indexed t, uint256[] indexed ids, (uint256 a, bool b)[2] pairs, string s)') as AbiEvent;
    const hashes = ['duo', 't', 'ids'].map((x) => keccak256(`0x${Buffer.from(x).toString('hex')}`));
    const data = encodeAbiParameters(event.inputs.slice(3), [
      [
        { a: 0n, b: false },
        { a: 1n, b: true },
      ],
      'naïve',
    ]);
    const log = { topics: [toEventSelector(event), ...hashes], data };
    const viem = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data, strict: true }).args as Record<string, unknown>;
    expect(viem).toMatchObject({ duo: hashes[0], t: hashes[1], ids: hashes[2] });
    expect(createEventDecoder(event).decode(log)).toEqual(viem);
  });
});

describe('erc20 Transfer shape', () => {
  // Which logs count as ERC-20 transfers is the engine's rule (erc20/decoder.test.ts); the ABI decoder agrees on the ERC-721 case.
  it('the ABI decoder refuses an ERC-721 Transfer (token id as a 4th topic) and accepts the ERC-20 one', () => {
    expect(transferDecoder.decode(encode(TRANSFER_EVENT, 3))).not.toBeNull();
    expect(transferDecoder.decode(parseNft())).toBeNull();
  });
});

function parseNft(): { topics: Hex[]; data: Hex } {
  const nft: AbiEvent = {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'tokenId', type: 'uint256', indexed: true },
    ],
  };
  return { topics: encodeEventTopics({ abi: [nft], eventName: 'Transfer', args: { from: `0x${'1'.repeat(40)}`, to: `0x${'2'.repeat(40)}`, tokenId: 7n } } as never) as Hex[], data: '0x' };
}
