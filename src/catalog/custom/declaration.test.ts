import { describe, expect, it } from 'vitest';
import { readCustomDeclaration } from './customEndpoints.ts';
import { CustomDeclarationError, parseCustomDataset, snakeCase } from './declaration.ts';

const VAULT = '0x00000000000000000000000000000000000000aa';
const base = { name: 'vault', abi: ['event Deposited(address indexed who, uint256 amount)'], networks: { ETH: { addresses: [VAULT], from_block: 5 } } };
const reject = (json: unknown) => expect(() => readCustomDeclaration(json)).toThrow(CustomDeclarationError);

describe('custom dataset declarations', () => {
  it('names events in snake_case', () => {
    expect(snakeCase('Deposited')).toBe('deposited');
    expect(snakeCase('WithdrawalRequested')).toBe('withdrawal_requested');
    expect(snakeCase('ERC20Moved')).toBe('erc20_moved');
    expect(snakeCase('NFTMinted')).toBe('nft_minted');
  });

  it('maps each ABI input to a typed column, in ABI order', () => {
    const d = parseCustomDataset({
      ...base,
      abi: [
        { type: 'function', name: 'deposit', inputs: [], outputs: [], stateMutability: 'nonpayable' },
        'event Moved(address indexed from, uint256 value, int32 tick, uint64 big, int128 wide, bool ok, bytes32 tag, bytes data, string memo, string indexed topic, uint256[] ids, (uint8 a, address b) pair)',
      ],
    });
    expect(d.events.map((e) => e.event)).toEqual(['moved']);
    expect(d.events[0]!.inputs.map((i) => [i.name, i.kind, i.stored, i.output])).toEqual([
      ['from', 'address', 'string', 'string'],
      ['value', 'wide_int', 'uint256', 'string'],
      ['tick', 'int', 'int64', 'integer'],
      ['big', 'int', 'uint64', 'integer'],
      ['wide', 'wide_int', 'int256', 'string'],
      ['ok', 'bool', 'boolean', 'boolean'],
      ['tag', 'bytes', 'string', 'string'],
      ['data', 'bytes', 'string', 'string'],
      ['memo', 'string', 'string', 'string'],
      ['topic', 'topic_hash', 'string', 'string'],
      ['ids', 'json', 'string', 'string'],
      ['pair', 'json', 'string', 'string'],
    ]);
    expect(d.networks).toEqual({ ETH: { addresses: [VAULT], fromBlock: 5 } });
  });

  it('keeps only the events named in "events", and normalises networks and addresses', () => {
    const d = readCustomDeclaration({
      ...base,
      abi: [...base.abi, 'event Withdrawn(address indexed who, uint256 amount)'],
      events: ['Withdrawn'],
      networks: { base: { addresses: [VAULT.toUpperCase().replace('0X', '0x'), VAULT] } },
    });
    expect(d.events.map((e) => e.signature)).toEqual(['Withdrawn(address,uint256)']);
    expect(d.networks).toEqual({ BASE: { addresses: [VAULT], fromBlock: 0 } });
  });

  it('refuses what it cannot serve, saying why', () => {
    reject([]);
    reject({ ...base, name: 'Vault' });
    reject({ ...base, name: 'my__vault' });
    reject({ ...base, abi: [] });
    reject({ ...base, abi: ['function f()'] });
    reject({ ...base, abi: ['event E(uint256 time)'] }); // hides the time column
    reject({ ...base, abi: ['event E(uint256 a, uint256 A)'] });
    reject({ ...base, abi: ['event E(uint256 a) anonymous'] });
    reject({ ...base, abi: ['event E(uint256 a)', 'event E(address a)'] }); // two events at events/e
    reject({ ...base, abi: ['event E(address format)'] }); // an address filter named like a route parameter
    reject({ ...base, events: ['Missing'] });
    reject({ ...base, networks: {} });
    reject({ ...base, networks: { TRON: { addresses: [VAULT] } } });
    reject({ ...base, networks: { ETH: { addresses: ['0x12'] } } });
    reject({ ...base, networks: { ETH: { addresses: [VAULT], from_block: -1 } } });
    expect(() => readCustomDeclaration({ ...base, abi: ['event E(uint256 time)'] })).toThrow(/time column/);
  });

  it('reads uint and int in an ABI object as uint256 and int256, which the selector hashes', () => {
    const d = readCustomDeclaration({
      ...base,
      abi: [
        {
          type: 'event',
          name: 'E',
          inputs: [
            { name: 'a', type: 'uint' },
            { name: 'b', type: 'int[]' },
            { name: 'c', type: 'tuple[2]', components: [{ name: 'x', type: 'uint' }] },
          ],
        },
      ],
    });
    expect(d.events[0]!.signature).toBe('E(uint256,int256[],(uint256)[2])');
    expect(d.events[0]!.inputs[0]!.kind).toBe('wide_int');
  });

  it('refuses the ABI types it does not serve with the errors docs/custom-datasets.md quotes', () => {
    const object = (type: string) => ({ ...base, abi: [{ type: 'event', name: 'E', inputs: [{ name: 'v', type }] }] });
    const text = (type: string) => ({ ...base, abi: [`event E(${type} v)`] });
    expect(() => readCustomDeclaration(object('fixed128x18'))).toThrow('ABI type fixed128x18 is not supported');
    expect(() => readCustomDeclaration(object('ufixed'))).toThrow('ABI type ufixed is not supported');
    expect(() => readCustomDeclaration(object('function'))).toThrow('ABI type function is not supported');
    expect(() => readCustomDeclaration(text('function'))).toThrow('ABI type function is not supported');
    expect(() => readCustomDeclaration(text('fixed128x18'))).toThrow('abi[0]: Unknown type.');
    expect(() => readCustomDeclaration(object('uint7'))).toThrow('uint7 is not an ABI integer type');
    expect(() => readCustomDeclaration(object('bytes33'))).toThrow('ABI type bytes33 is not supported');
  });
});
