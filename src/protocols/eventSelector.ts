/**
 * An event's selector (topic 0): the keccak256 of its canonical signature.
 * Computed here rather than with viem's `toEventSelector` because the catalog
 * needs selectors when it loads, in the server too, and viem costs the server
 * about 15 MiB of memory held for its life; keccak alone is a small module.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import type { AbiEvent, AbiParameter } from 'abitype';
import type { Hex } from './evmNode.ts';

/** `tuple[2][]` with components (uint256, address) → `(uint256,address)[2][]`: the type as the signature spells it. */
function canonicalType(p: AbiParameter): string {
  if (!p.type.startsWith('tuple')) return p.type;
  const components = 'components' in p ? p.components : [];
  return `(${components.map(canonicalType).join(',')})${p.type.slice('tuple'.length)}`;
}

/** `Transfer(address,address,uint256)`: names and `indexed` left out. */
export const eventSignature = (event: AbiEvent): string => `${event.name}(${event.inputs.map(canonicalType).join(',')})`;

export function eventSelector(event: AbiEvent): Hex {
  const hash = keccak_256(new TextEncoder().encode(eventSignature(event)));
  return `0x${Buffer.from(hash).toString('hex')}`;
}
