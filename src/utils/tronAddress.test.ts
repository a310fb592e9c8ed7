import { describe, expect, it } from 'vitest';
import { isTronBase58, tronBase58ToHex, tronHexToBase58 } from './tronAddress.ts';

// The USDT TRC-20 contract, whose two encodings are published by Tether and Tronscan.
const USDT_BASE58 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';

describe('tron addresses', () => {
  it('encodes 41-prefixed hex as base58check', () => {
    expect(tronHexToBase58(USDT_HEX)).toBe(USDT_BASE58);
  });
  it('accepts the 20-byte form that logs carry', () => {
    expect(tronHexToBase58(`0x${USDT_HEX.slice(2)}`)).toBe(USDT_BASE58);
  });
  it('decodes base58 back to hex', () => {
    expect(tronBase58ToHex(USDT_BASE58)).toBe(USDT_HEX);
  });
  it('rejects a bad checksum', () => {
    expect(isTronBase58('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
    expect(isTronBase58(USDT_BASE58)).toBe(true);
  });
});
