import { parseAbiItem } from 'abitype';
import { CHAIN_FORMATS, EVM_LOG_ORDER, evmDatasetNames, blockNumberColumn, col, evmLogKey, evmVerboseColumns, involvingFilters, involvingParams, timeColumn } from '../../catalog/common.ts';
import type { AggregateColumn, ChainEndpoint, OutputColumn, StoredColumn } from '../../catalog/types.ts';

export const LENDING_NETWORKS = ['ETH', 'POLYGON', 'AVAX', 'ARB', 'OP', 'BASE', 'GNOSIS', 'SCROLL', 'BSC', 'ZK', 'LINEA'] as const;

/** The markets of the lending protocol on ETH; other networks have one market, `Core`. */
export const ETH_MARKETS = ['Core', 'Prime', 'EtherFi'] as const;

const reserve = (prefix = ''): StoredColumn[] => [
  { name: `${prefix}token_address`, type: 'string' },
  { name: `${prefix}token`, type: 'string' },
  { name: `${prefix}token_decimals`, type: 'uint8' },
];
const amount = (name: string): StoredColumn[] => [
  { name: `${name}_raw`, type: 'uint256' },
  { name, type: 'float64' },
];

/** The Pool's ABI events (Aave v3 `IPool`), by dataset event. */
export const LENDING_ABI = {
  deposit: parseAbiItem('event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)'),
  withdraw: parseAbiItem('event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount)'),
  borrow: parseAbiItem('event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)'),
  repay: parseAbiItem('event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens)'),
  flashloan: parseAbiItem('event FlashLoan(address indexed target, address initiator, address indexed asset, uint256 amount, uint8 interestRateMode, uint256 premium, uint16 indexed referralCode)'),
  liquidation: parseAbiItem(
    'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
  ),
} as const;

interface LendingEvent {
  readonly event: keyof typeof LENDING_ABI;
  readonly summary: string;
  readonly stored: readonly StoredColumn[];
  readonly columns: readonly OutputColumn[];
  readonly involving: readonly string[];
  readonly aggregate: readonly AggregateColumn[];
  readonly pricedAmount: { amount: string; token: string };
}

function lendingEndpoint(e: LendingEvent): ChainEndpoint {
  const names = evmDatasetNames('lending_v3', e.event);
  const abi = LENDING_ABI[e.event];
  return {
    id: names.id,
    path: names.path,
    family: 'evm',
    protocol: 'lending_v3',
    event: e.event,
    eventName: abi.name,
    abi,
    summary: e.summary,
    networks: LENDING_NETWORKS,
    table: {
      name: names.tableName,
      columns: [...evmLogKey, { name: 'market', type: 'string' }, { name: 'pool_address', type: 'string' }, ...e.stored],
      orderBy: EVM_LOG_ORDER,
    },
    params: {
      eth_market_type: {
        type: 'string',
        enum: ETH_MARKETS,
        default: 'Core',
        networks: ['ETH'],
        description: 'Market on ETH: Core (default), Prime or EtherFi. Only accepted with network=ETH.',
      },
      ...involvingParams,
    },
    filters: { eth_market_type: { kind: 'market', column: 'market', network: 'ETH' }, ...involvingFilters(e.involving) },
    columns: [blockNumberColumn, ...e.columns, timeColumn],
    verboseColumns: evmVerboseColumns(abi.name),
    pricedAmount: e.pricedAmount,
    aggregate: { columns: e.aggregate, always_included: ['count'], valued: true },
    formats: CHAIN_FORMATS,
    defaultFormat: 'json',
    cost: { kind: 'blocks' },
    served: true,
  };
}

const tokenCol = col('token', 'string', 'Reserve token symbol.');
const amountCol = col('amount', 'double', 'Amount in token units.');
const sumAmount: AggregateColumn[] = [{ source_column: 'amount', aggregation: 'sum', output_column: 'agg_amount' }];

export const lendingDeposit = lendingEndpoint({
  event: 'deposit',
  summary: 'Supplies to the lending pool (Supply events).',
  stored: [{ name: 'user', type: 'string' }, { name: 'on_behalf_of', type: 'string' }, { name: 'referral_code', type: 'int32' }, ...reserve(), ...amount('amount')],
  columns: [
    col('user', 'string', 'Address that supplied.'),
    tokenCol,
    amountCol,
    col('on_behalf_of', 'string', 'Address credited with the supply.'),
    col('referral_code', 'integer', 'Referral code.'),
  ],
  involving: ['user', 'on_behalf_of'],
  aggregate: sumAmount,
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const lendingWithdraw = lendingEndpoint({
  event: 'withdraw',
  summary: 'Withdrawals from the lending pool.',
  stored: [{ name: 'user', type: 'string' }, { name: 'recipient', type: 'string' }, ...reserve(), ...amount('amount')],
  columns: [col('user', 'string', 'Address that withdrew.'), tokenCol, amountCol, col('recipient', 'string', 'Address that received the funds.')],
  involving: ['user', 'recipient'],
  aggregate: sumAmount,
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const lendingBorrow = lendingEndpoint({
  event: 'borrow',
  summary: 'Borrows from the lending pool.',
  stored: [
    { name: 'user', type: 'string' },
    { name: 'on_behalf_of', type: 'string' },
    { name: 'interest_rate_mode', type: 'int32' },
    ...amount('borrow_rate'),
    { name: 'referral_code', type: 'int32' },
    ...reserve(),
    ...amount('amount'),
  ],
  columns: [
    col('user', 'string', 'Address that borrowed.'),
    tokenCol,
    amountCol,
    col('on_behalf_of', 'string', 'Address whose debt grows.'),
    col('interest_rate_mode', 'integer', '1 stable, 2 variable.'),
    col('borrow_rate', 'double', 'Borrow rate at the time, as a fraction per year (ray / 1e27).'),
  ],
  involving: ['user', 'on_behalf_of'],
  aggregate: [...sumAmount, { source_column: 'borrow_rate', aggregation: 'mean', output_column: 'mean_borrow_rate' }],
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const lendingRepay = lendingEndpoint({
  event: 'repay',
  summary: 'Debt repayments.',
  stored: [{ name: 'user', type: 'string' }, { name: 'repayer', type: 'string' }, { name: 'use_a_tokens', type: 'boolean' }, ...reserve(), ...amount('amount')],
  columns: [col('user', 'string', 'Address whose debt was repaid.'), tokenCol, amountCol, col('repayer', 'string', 'Address that paid.'), col('use_a_tokens', 'boolean', 'Repaid with aTokens.')],
  involving: ['user', 'repayer'],
  aggregate: sumAmount,
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const lendingFlashloan = lendingEndpoint({
  event: 'flashloan',
  summary: 'Flash loans.',
  stored: [
    { name: 'initiator', type: 'string' },
    { name: 'target', type: 'string' },
    { name: 'interest_rate_mode', type: 'int32' },
    { name: 'referral_code', type: 'int32' },
    ...reserve(),
    ...amount('amount'),
    ...amount('premium'),
  ],
  columns: [
    col('initiator', 'string', 'Address that started the loan.'),
    tokenCol,
    amountCol,
    col('premium', 'double', 'Fee paid, in token units.'),
    col('target', 'string', 'Receiver contract of the loan.'),
  ],
  involving: ['initiator', 'target'],
  aggregate: sumAmount,
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const lendingLiquidation = lendingEndpoint({
  event: 'liquidation',
  summary: 'Liquidations.',
  stored: [
    { name: 'owner', type: 'string' },
    { name: 'liquidator', type: 'string' },
    { name: 'receive_a_token', type: 'boolean' },
    ...reserve('debt_'),
    ...reserve('collateral_'),
    ...amount('debt_to_cover'),
    ...amount('liquidated_collateral'),
  ],
  columns: [
    col('owner', 'string', 'Borrower whose position was liquidated.'),
    col('liquidator', 'string', 'Liquidator address.'),
    col('debt_token', 'string', 'Debt token symbol.'),
    col('collateral_token', 'string', 'Collateral token symbol.'),
    col('debt_to_cover', 'double', 'Debt repaid, in debt-token units.'),
    col('liquidated_collateral', 'double', 'Collateral seized, in collateral-token units.'),
  ],
  involving: ['owner', 'liquidator'],
  aggregate: [
    { source_column: 'debt_to_cover', aggregation: 'sum', output_column: 'agg_debt_to_cover' },
    { source_column: 'liquidated_collateral', aggregation: 'sum', output_column: 'agg_liquidated_collateral_amount' },
  ],
  pricedAmount: { amount: 'debt_to_cover', token: 'debt_token' },
});

export const lendingEndpoints = [lendingDeposit, lendingWithdraw, lendingBorrow, lendingRepay, lendingFlashloan, lendingLiquidation];
