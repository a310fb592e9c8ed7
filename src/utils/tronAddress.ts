/**
 * Tron addresses: 21 bytes (0x41 + the 20-byte account) shown as base58check
 * `T…`. Nodes speak hex (`41…`), users and the API speak base58.
 */
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2';

const base58check = createBase58check(sha256);

/** `41…` (42 hex chars), `0x…` 20-byte EVM-style, or bare 40 hex → `T…`. */
export function tronHexToBase58(hex: string): string {
  let h = hex.toLowerCase().replace(/^0x/, '');
  if (h.length === 40) h = `41${h}`;
  if (!/^41[0-9a-f]{40}$/.test(h)) throw new Error(`not a Tron hex address: ${hex}`);
  return base58check.encode(Buffer.from(h, 'hex'));
}

/** `T…` → `41…` hex (lowercase, 42 chars). Throws on a bad checksum. */
export function tronBase58ToHex(address: string): string {
  const bytes = base58check.decode(address);
  if (bytes.length !== 21 || bytes[0] !== 0x41) throw new Error(`not a Tron address: ${address}`);
  return Buffer.from(bytes).toString('hex');
}

export function isTronBase58(address: string): boolean {
  try {
    tronBase58ToHex(address);
    return true;
  } catch {
    return false;
  }
}
