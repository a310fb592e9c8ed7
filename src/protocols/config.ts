/** Schema pieces the protocols' configuration sections share. */

export type Address = `0x${string}`;

export const ADDRESS_SCHEMA = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: 'a 0x-prefixed 20-byte hex address' } as const;
export const BLOCK_SCHEMA = { type: ['integer', 'null'], minimum: 0, description: 'a block number or null' } as const;

/** Addresses are compared lowercased everywhere. */
export const lowerAddress = (a: string): Address => `0x${a.slice(2).toLowerCase()}`;
