/** Reading decimals() and symbol() answers, including the old bytes32 symbols. */
import { encodeAbiParameters, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { parseDecimals, parseSymbol } from './tokenBook.ts';

describe('token metadata answers', () => {
  it('decimals(): one uint8 word; anything else is unknown', () => {
    expect(parseDecimals(encodeAbiParameters([{ type: 'uint8' }], [6]))).toBe(6);
    expect(parseDecimals('0x')).toBeNull();
    expect(parseDecimals(encodeAbiParameters([{ type: 'uint256' }], [1000n]))).toBeNull();
  });

  it('symbol(): an ABI string or a bytes32 (MKR), uppercased, control characters dropped', () => {
    expect(parseSymbol(encodeAbiParameters([{ type: 'string' }], ['usdc.e']))).toBe('USDC.E');
    expect(parseSymbol(stringToHex('MKR', { size: 32 }))).toBe('MKR');
    expect(parseSymbol(encodeAbiParameters([{ type: 'string' }], ['a\u0000b\nc ']))).toBe('A B C');
    expect(parseSymbol(encodeAbiParameters([{ type: 'string' }], ['']))).toBeNull();
    expect(parseSymbol('0x')).toBeNull();
  });
});
