import { parseAbiItem } from 'abitype';
import { CHAIN_FORMATS, EVM_LOG_ORDER, evmDatasetNames, blockNumberColumn, col, evmLogKey, evmVerboseColumns, involvingFilters, involvingParams, stored, timeColumn } from '../../catalog/common.ts';
import type { AggregateSchema, ChainEndpoint, ColumnExpr, OutputColumn, Params, StoredColumn } from '../../catalog/types.ts';

export const DEX_NETWORKS = ['ETH', 'ARB', 'OP', 'POLYGON', 'BASE', 'BSC', 'AVAX', 'CELO', 'BLAST', 'ZK', 'ZORA', 'WORLD', 'BERA'] as const;
export const DEX_FEES = [100, 500, 3000, 10000] as const;

export const poolParams: Params = {
  symbol0: { type: 'string', required: true, description: 'First pool token symbol, case-insensitive. Either order of symbol0/symbol1 finds the pool.' },
  symbol1: { type: 'string', required: true, description: 'Second pool token symbol, case-insensitive.' },
  fee: { type: 'integer', required: true, enum: DEX_FEES, description: 'Pool fee tier in hundredths of a basis point: 100, 500, 3000, 10000 (0.01%, 0.05%, 0.30%, 1.00%).' },
};

/** Columns of every pool event: which pool and what its two tokens are. */
const poolStored: StoredColumn[] = [
  { name: 'pool_address', type: 'string' },
  { name: 'token0_address', type: 'string' },
  { name: 'token0', type: 'string' },
  { name: 'token0_decimals', type: 'uint8' },
  { name: 'token1_address', type: 'string' },
  { name: 'token1', type: 'string' },
  { name: 'token1_decimals', type: 'uint8' },
  { name: 'amount0_raw', type: 'int256' },
  { name: 'amount0', type: 'float64' },
  { name: 'amount1_raw', type: 'int256' },
  { name: 'amount1', type: 'float64' },
];

const tickRange: StoredColumn[] = [
  { name: 'tick_lower', type: 'int32' },
  { name: 'tick_upper', type: 'int32' },
];

/** The factory's and the pools' ABI events (Uniswap v3), by dataset event; `poolCreated` feeds pool discovery, not a dataset. */
export const DEX_ABI = {
  poolCreated: parseAbiItem('event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)'),
  swap: parseAbiItem('event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)'),
  deposit: parseAbiItem('event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)'),
  withdraw: parseAbiItem('event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)'),
  collect: parseAbiItem('event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1)'),
} as const;

/** Coverage of pool discovery (not an endpoint): the factory's PoolCreated logs were read over these blocks. */
export const POOLS_DATASET = evmDatasetNames('dex_v3', 'pools').id;

interface DexEvent {
  readonly event: Exclude<keyof typeof DEX_ABI, 'poolCreated'>;
  readonly summary: string;
  readonly stored: readonly StoredColumn[];
  readonly columns: readonly OutputColumn[];
  readonly involving: readonly string[];
  readonly aggregate: AggregateSchema;
  readonly pricedLegs: NonNullable<ChainEndpoint['pricedLegs']>;
}

function dexEndpoint(e: DexEvent): ChainEndpoint {
  const names = evmDatasetNames('dex_v3', e.event);
  const abi = DEX_ABI[e.event];
  return {
    id: names.id,
    path: names.path,
    family: 'evm',
    protocol: 'dex_v3',
    event: e.event,
    eventName: abi.name,
    abi,
    summary: e.summary,
    networks: DEX_NETWORKS,
    table: { name: names.tableName, columns: [...evmLogKey, ...poolStored, ...e.stored], orderBy: EVM_LOG_ORDER },
    params: { ...poolParams, ...involvingParams },
    filters: { symbol0: { kind: 'pool' }, ...involvingFilters(e.involving) },
    columns: [blockNumberColumn, col('pool_address', 'string', 'Pool contract address.'), ...e.columns, timeColumn],
    verboseColumns: evmVerboseColumns(abi.name),
    aggregate: e.aggregate,
    pricedLegs: e.pricedLegs,
    formats: CHAIN_FORMATS,
    defaultFormat: 'json',
    cost: { kind: 'blocks' },
    served: true,
  };
}

const liquidityAmounts: OutputColumn[] = [
  col('amount0', 'double', 'Amount of token0, in token units.'),
  col('amount1', 'double', 'Amount of token1, in token units.'),
  col('token0', 'string', 'Symbol of token0.'),
  col('token1', 'string', 'Symbol of token1.'),
];

/** A liquidity event moves both tokens: its value is the sum of both legs. */
const liquidityLegs = {
  combine: 'sum',
  legs: [
    { amount: 'amount0', token: 'token0' },
    { amount: 'amount1', token: 'token1' },
  ],
} as const;

const amountPivot: AggregateSchema = {
  columns: [],
  pivot_columns: [
    { value_column: 'amount0', key_column: 'token0', aggregation: 'sum', suffix: '_amount', output_pattern: 'agg_<TOKEN>_amount' },
    { value_column: 'amount1', key_column: 'token1', aggregation: 'sum', suffix: '_amount', output_pattern: 'agg_<TOKEN>_amount' },
  ],
  always_included: ['count'],
  valued: true,
};

/** The pool's view of a swap: a positive amount entered the pool (the swapper sold it). */
const whenToken0Sold = (then: ColumnExpr, otherwise: ColumnExpr): ColumnExpr => ({
  kind: 'if',
  left: stored('amount0'),
  op: '>',
  right: { kind: 'literal', value: 0, type: 'double' },
  then,
  else: otherwise,
});
const negate = (arg: ColumnExpr): ColumnExpr => ({ kind: 'negate', arg });
export const swapSold = {
  token: whenToken0Sold(stored('token0'), stored('token1')),
  amount: whenToken0Sold(stored('amount0'), stored('amount1')),
};
export const swapBought = {
  token: whenToken0Sold(stored('token1'), stored('token0')),
  amount: whenToken0Sold(negate(stored('amount1')), negate(stored('amount0'))),
};

export const dexSwap = dexEndpoint({
  event: 'swap',
  summary: 'Pool swaps.',
  stored: [
    { name: 'sender', type: 'string' },
    { name: 'recipient', type: 'string' },
    { name: 'swapper', type: 'string' },
    { name: 'sqrt_price_x96', type: 'uint256' },
    { name: 'sqrt_based_price', type: 'float64' },
    { name: 'liquidity_raw', type: 'uint256' },
    { name: 'liquidity', type: 'float64' },
    { name: 'tick', type: 'int32' },
  ],
  columns: [
    col('swapper', 'string', 'The transaction sender (the account that initiated the swap).'),
    col('tokenSold', 'string', 'Symbol of the token the swapper gave.', swapSold.token),
    col('tokenBought', 'string', 'Symbol of the token the swapper received.', swapBought.token),
    col('amountSold', 'double', 'Amount given, in token units.', swapSold.amount),
    col('amountBought', 'double', 'Amount received, in token units.', swapBought.amount),
  ],
  involving: ['swapper', 'sender', 'recipient'],
  // The value of a swap is what the swapper gave, or what they got when the token given has no price.
  pricedLegs: {
    combine: 'first_priced',
    legs: [
      { amount: 'amountSold', token: 'tokenSold' },
      { amount: 'amountBought', token: 'tokenBought' },
    ],
  },
  aggregate: {
    columns: [
      { source_column: 'sqrt_based_price', aggregation: 'mean', output_column: 'mean_sqrt_based_price' },
      { source_column: 'liquidity', aggregation: 'mean', output_column: 'mean_liquidity' },
    ],
    pivot_columns: [
      { value_column: 'amountSold', key_column: 'tokenSold', aggregation: 'sum', suffix: '_sold', output_pattern: 'agg_<TOKEN>_sold' },
      { value_column: 'amountBought', key_column: 'tokenBought', aggregation: 'sum', suffix: '_bought', output_pattern: 'agg_<TOKEN>_bought' },
    ],
    always_included: ['count'],
    valued: true,
  },
});

export const dexDeposit = dexEndpoint({
  event: 'deposit',
  summary: 'Liquidity added to a pool (Mint events).',
  stored: [{ name: 'sender', type: 'string' }, { name: 'owner', type: 'string' }, ...tickRange, { name: 'liquidity_raw', type: 'uint256' }],
  columns: [col('sender', 'string', 'Address that called mint.'), col('owner', 'string', 'Position owner.'), ...liquidityAmounts],
  involving: ['sender', 'owner'],
  aggregate: amountPivot,
  pricedLegs: liquidityLegs,
});

export const dexWithdraw = dexEndpoint({
  event: 'withdraw',
  summary: 'Liquidity removed from a pool (Burn events).',
  stored: [{ name: 'owner', type: 'string' }, ...tickRange, { name: 'liquidity_raw', type: 'uint256' }],
  columns: [col('owner', 'string', 'Position owner.'), ...liquidityAmounts],
  involving: ['owner'],
  aggregate: amountPivot,
  pricedLegs: liquidityLegs,
});

export const dexCollect = dexEndpoint({
  event: 'collect',
  summary: 'Fees and withdrawn liquidity collected from a pool.',
  stored: [{ name: 'owner', type: 'string' }, { name: 'recipient', type: 'string' }, ...tickRange],
  columns: [col('owner', 'string', 'Position owner.'), col('recipient', 'string', 'Address that received the tokens.'), ...liquidityAmounts],
  involving: ['owner', 'recipient'],
  aggregate: amountPivot,
  pricedLegs: liquidityLegs,
});

export const dexEndpoints = [dexSwap, dexDeposit, dexWithdraw, dexCollect];
