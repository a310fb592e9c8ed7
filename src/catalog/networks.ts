/**
 * Network codes, their cadence and the pricing facts attached to them.
 * `blocksPerDay` is the shipped table of the time-range cost estimate
 * (docs/metering.md, "What a request costs"); the cost function accepts
 * another one (docs/metering.md, "Blocks per day").
 */
export interface NetworkInfo {
  readonly code: string;
  readonly name: string;
  readonly chainId: number | null;
  readonly blocksPerDay: number;
  readonly nativeSymbol: string;
  /** Multiplier applied to the block range in cost (`network_discount` in docs/metering.md, "What a request costs"). */
  readonly costDiscount: number;
  /**
   * Blocks a block must be behind the newest one before a stream with
   * finality=final delivers it (docs/api.md, "Streams and cursors"): past it,
   * chainq treats the block as final on this network.
   */
  readonly finalityDepth: number;
}

const net = (code: string, name: string, chainId: number | null, blocksPerDay: number, nativeSymbol: string, costDiscount = 1, finalityDepth = 64): NetworkInfo => ({
  code,
  name,
  chainId,
  blocksPerDay,
  nativeSymbol,
  costDiscount,
  finalityDepth,
});

export const NETWORKS = {
  ETH: net('ETH', 'Ethereum', 1, 7_200, 'ETH'),
  ARB: net('ARB', 'Arbitrum One', 42161, 345_600, 'ETH', 0.2),
  OP: net('OP', 'OP Mainnet', 10, 43_200, 'ETH'),
  BASE: net('BASE', 'Base', 8453, 43_200, 'ETH'),
  POLYGON: net('POLYGON', 'Polygon PoS', 137, 43_200, 'POL', 1, 128),
  AVAX: net('AVAX', 'Avalanche C-Chain', 43114, 43_200, 'AVAX', 1, 1),
  LINEA: net('LINEA', 'Linea', 59144, 43_200, 'ETH'),
  BLAST: net('BLAST', 'Blast', 81457, 43_200, 'ETH'),
  ZORA: net('ZORA', 'Zora', 7777777, 43_200, 'ETH'),
  WORLD: net('WORLD', 'World Chain', 480, 43_200, 'ETH'),
  BERA: net('BERA', 'Berachain', 80094, 43_200, 'BERA'),
  SONEIUM: net('SONEIUM', 'Soneium', 1868, 43_200, 'ETH'),
  ZIRCUIT: net('ZIRCUIT', 'Zircuit', 48900, 43_200, 'ETH'),
  MANTLE: net('MANTLE', 'Mantle', 5000, 43_200, 'MNT'),
  MODE: net('MODE', 'Mode', 34443, 43_200, 'ETH'),
  BSC: net('BSC', 'BNB Smart Chain', 56, 115_200, 'BNB', 1, 15),
  GNOSIS: net('GNOSIS', 'Gnosis', 100, 17_280, 'XDAI'),
  SCROLL: net('SCROLL', 'Scroll', 534352, 28_800, 'ETH'),
  ZK: net('ZK', 'ZKsync Era', 324, 86_400, 'ETH'),
  CELO: net('CELO', 'Celo', 42220, 86_400, 'CELO'),
  UNI: net('UNI', 'Unichain', 130, 86_400, 'ETH'),
  TRON: net('TRON', 'Tron', null, 28_800, 'TRX', 1, 19),
  BTC: net('BTC', 'Bitcoin', null, 144, 'BTC', 1, 6),
} as const satisfies Record<string, NetworkInfo>;

/** The finality depth of a network (NetworkInfo.finalityDepth). */
export function finalityDepth(code: string): number {
  const info = networkInfo(code);
  if (!info) throw new Error(`unknown network ${code}`);
  return info.finalityDepth;
}

export function networkInfo(code: string): NetworkInfo | undefined {
  const known: Readonly<Record<string, NetworkInfo>> = NETWORKS;
  return Object.hasOwn(known, code) ? known[code] : undefined;
}

/** Seconds between blocks implied by the blocks-per-day table. */
export function blockSeconds(code: string): number {
  const info = networkInfo(code);
  if (!info) throw new Error(`unknown network ${code}`);
  return 86_400 / info.blocksPerDay;
}
