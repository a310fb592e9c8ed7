/** The EVM protocols `chainq ingest evm` knows, in the order a run plans them (kept light: the CLI reads it to define --only). */
export const EVM_PROTOCOLS = ['erc20', 'native', 'lending_v3', 'dex_v3', 'staking'] as const;
export type EvmProtocol = (typeof EVM_PROTOCOLS)[number];
