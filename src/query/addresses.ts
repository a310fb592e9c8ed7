/** Address inputs per chain family: validated and brought to the stored form. */
import type { Family } from '../catalog/types.ts';
import { ApiError } from '../errors/apiError.ts';
import { isTronBase58 } from '../utils/tronAddress.ts';

const EVM = /^0x[0-9a-fA-F]{40}$/;
const TRON = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const BTC = /^(bc1[02-9ac-hj-np-z]{6,87}|BC1[02-9AC-HJ-NP-Z]{6,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$/;

/** Returns the stored form of an address, or throws invalid_parameter naming `param`. */
export function normalizeAddress(family: Family, value: string, param: string): string {
  const v = value.trim();
  switch (family) {
    case 'evm':
      if (EVM.test(v)) return v.toLowerCase();
      break;
    case 'tron':
      if (TRON.test(v) && isTronBase58(v)) return v;
      break;
    case 'btc':
      if (BTC.test(v)) return v.startsWith('BC1') ? v.toLowerCase() : v;
      break;
    case 'exchange':
      // Venue wallets (venue_b) are 0x hex accounts, stored in lower case.
      if (EVM.test(v)) return v.toLowerCase();
      break;
  }
  const expected = family === 'evm' || family === 'exchange' ? 'a 0x-prefixed 20-byte hex address' : family === 'tron' ? 'a base58 T… address' : 'a Bitcoin address';
  throw new ApiError('invalid_parameter', `${param}='${value}' is not ${expected}`, { parameter: param });
}

export function isEvmAddress(v: string): boolean {
  return EVM.test(v);
}

/** Splits a comma-separated list parameter, dropping empty items. */
export function splitList(value: string, param: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw new ApiError('invalid_parameter', `${param} is empty`, { parameter: param });
  if (items.length > 100) throw new ApiError('invalid_parameter', `${param} lists more than 100 values`, { parameter: param });
  return items;
}
