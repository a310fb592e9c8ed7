import { parseAbiItem, type AbiEvent } from 'abitype';
import { CHAIN_FORMATS, EVM_LOG_ORDER, evmDatasetNames, blockNumberColumn, col, evmLogKey, evmVerboseColumns, involvingFilters, involvingParams, timeColumn } from '../../catalog/common.ts';
import type { AggregateColumn, ChainEndpoint, OutputColumn, StoredColumn } from '../../catalog/types.ts';

export const STAKING_L1_NETWORKS = ['ETH'] as const;
export const STAKING_L2_NETWORKS = ['ARB', 'SONEIUM', 'UNI', 'OP', 'ZK', 'ZIRCUIT', 'BASE', 'MANTLE', 'MODE'] as const;

/** Lido's L1 events, by dataset event: stETH `Submitted`, the WithdrawalQueue's requests and claims. */
export const STAKING_L1_ABI = {
  deposit: parseAbiItem('event Submitted(address indexed sender, uint256 amount, address referral)'),
  withdrawal_request: parseAbiItem('event WithdrawalRequested(uint256 indexed requestId, address indexed requestor, address indexed owner, uint256 amountOfStETH, uint256 amountOfShares)'),
  withdrawal_claimed: parseAbiItem('event WithdrawalClaimed(uint256 indexed requestId, address indexed owner, address indexed receiver, uint256 amountOfETH)'),
} as const;

/** The dialects of the wstETH token bridges on L2s. */
export const BRIDGE_KINDS = ['optimism', 'arbitrum', 'zksync'] as const;
export type BridgeKind = (typeof BRIDGE_KINDS)[number];

/**
 * The L2 bridge events, by dialect: each dataset event has one or more ABI
 * shapes. The endpoints' own ABI (and verbose `name`) is the OP-stack one.
 */
export const STAKING_BRIDGE_ABI = {
  optimism: {
    l2_deposit: [parseAbiItem('event DepositFinalized(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data)')],
    l2_withdrawal_request: [parseAbiItem('event WithdrawalInitiated(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data)')],
  },
  arbitrum: {
    l2_deposit: [parseAbiItem('event DepositFinalized(address indexed l1Token, address indexed from, address indexed to, uint256 amount)')],
    l2_withdrawal_request: [parseAbiItem('event WithdrawalInitiated(address l1Token, address indexed from, address indexed to, uint256 indexed l2ToL1Id, uint256 exitNum, uint256 amount)')],
  },
  zksync: {
    l2_deposit: [
      parseAbiItem('event FinalizeDeposit(address indexed l1Sender, address indexed l2Receiver, address indexed l2Token, uint256 amount)'),
      parseAbiItem('event FinalizeDeposit(address indexed l1Sender, address indexed l2Receiver, address indexed l2Token, uint256 amount, bytes data)'),
    ],
    l2_withdrawal_request: [parseAbiItem('event WithdrawalInitiated(address indexed l2Sender, address indexed l1Receiver, address indexed l2Token, uint256 amount)')],
  },
} as const;

/** Which configured contract emits each dataset's events (the protocols file's staking keys). */
export const STAKING_CONTRACT_OF = {
  deposit: 'steth',
  withdrawal_request: 'withdrawal_queue',
  withdrawal_claimed: 'withdrawal_queue',
  l2_deposit: 'l2_token_bridge',
  l2_withdrawal_request: 'l2_token_bridge',
} as const;

type StakingDatasetEvent = keyof typeof STAKING_CONTRACT_OF;
const abiOf = (event: StakingDatasetEvent): AbiEvent => (event === 'l2_deposit' || event === 'l2_withdrawal_request' ? STAKING_BRIDGE_ABI.optimism[event][0] : STAKING_L1_ABI[event]);

interface StakingEvent {
  readonly event: StakingDatasetEvent;
  readonly summary: string;
  readonly networks: readonly string[];
  readonly stored: readonly StoredColumn[];
  readonly columns: readonly OutputColumn[];
  readonly involving: readonly string[];
  readonly aggregate: AggregateColumn;
  readonly pricedAmount: { amount: string; token: string };
}

const amount = (name: string): StoredColumn[] => [
  { name: `${name}_raw`, type: 'uint256' },
  { name, type: 'float64' },
];

function stakingEndpoint(e: StakingEvent): ChainEndpoint {
  const names = evmDatasetNames('staking', e.event);
  const abi = abiOf(e.event);
  return {
    id: names.id,
    path: names.path,
    family: 'evm',
    protocol: 'staking',
    event: e.event,
    eventName: abi.name,
    abi,
    summary: e.summary,
    networks: e.networks,
    table: { name: names.tableName, columns: [...evmLogKey, { name: 'contract_address', type: 'string' }, ...e.stored], orderBy: EVM_LOG_ORDER },
    params: { ...involvingParams },
    filters: involvingFilters(e.involving),
    columns: [blockNumberColumn, ...e.columns, timeColumn],
    verboseColumns: evmVerboseColumns(abi.name),
    pricedAmount: e.pricedAmount,
    aggregate: { columns: [e.aggregate], always_included: ['count'], valued: true },
    formats: CHAIN_FORMATS,
    defaultFormat: 'json',
    cost: { kind: 'blocks' },
    served: true,
  };
}

export const stakingDeposit = stakingEndpoint({
  event: 'deposit',
  summary: 'ETH staked for stETH (Submitted events).',
  networks: STAKING_L1_NETWORKS,
  stored: [{ name: 'sender', type: 'string' }, { name: 'referral', type: 'string' }, ...amount('minted_amount'), { name: 'minted_token', type: 'string' }],
  columns: [
    col('sender', 'string', 'Staker.'),
    col('referral', 'string', 'Referral address.'),
    col('minted_amount', 'double', 'stETH minted (equal to the ETH submitted).'),
    col('minted_token', 'string', 'Minted token symbol.'),
  ],
  involving: ['sender'],
  aggregate: { source_column: 'minted_amount', aggregation: 'sum', output_column: 'agg_minted_amount' },
  pricedAmount: { amount: 'minted_amount', token: 'minted_token' },
});

export const stakingWithdrawalRequest = stakingEndpoint({
  event: 'withdrawal_request',
  summary: 'Withdrawal requests to the withdrawal queue.',
  networks: STAKING_L1_NETWORKS,
  stored: [
    { name: 'request_id', type: 'uint64' },
    { name: 'requestor', type: 'string' },
    { name: 'owner', type: 'string' },
    ...amount('burned_amount'),
    ...amount('burned_shares'),
    { name: 'burned_token', type: 'string' },
  ],
  columns: [
    col('request_id', 'integer', 'Withdrawal request id.'),
    col('requestor', 'string', 'Address that requested.'),
    col('owner', 'string', 'Owner of the request.'),
    col('burned_amount', 'double', 'stETH locked for withdrawal.'),
    col('burned_token', 'string', 'Burned token symbol.'),
  ],
  involving: ['requestor', 'owner'],
  aggregate: { source_column: 'burned_amount', aggregation: 'sum', output_column: 'agg_burned_amount' },
  pricedAmount: { amount: 'burned_amount', token: 'burned_token' },
});

export const stakingWithdrawalClaimed = stakingEndpoint({
  event: 'withdrawal_claimed',
  summary: 'Claimed withdrawals.',
  networks: STAKING_L1_NETWORKS,
  stored: [{ name: 'request_id', type: 'uint64' }, { name: 'receiver', type: 'string' }, { name: 'owner', type: 'string' }, ...amount('withdraw_amount'), { name: 'withdraw_token', type: 'string' }],
  columns: [
    col('request_id', 'integer', 'Withdrawal request id.'),
    col('receiver', 'string', 'Address that received ETH.'),
    col('owner', 'string', 'Owner of the request.'),
    col('withdraw_amount', 'double', 'ETH paid out.'),
    col('withdraw_token', 'string', 'Paid token symbol.'),
  ],
  involving: ['receiver', 'owner'],
  aggregate: { source_column: 'withdraw_amount', aggregation: 'sum', output_column: 'agg_withdraw_amount' },
  pricedAmount: { amount: 'withdraw_amount', token: 'withdraw_token' },
});

const l2Stored = (from: string, to: string): StoredColumn[] => [
  { name: 'l1_token', type: 'string' },
  { name: 'l2_token', type: 'string' },
  { name: from, type: 'string' },
  { name: to, type: 'string' },
  ...amount('amount'),
  { name: 'token', type: 'string' },
];

export const stakingL2Deposit = stakingEndpoint({
  event: 'l2_deposit',
  summary: 'wstETH bridged from L1, finalized on the L2.',
  networks: STAKING_L2_NETWORKS,
  stored: l2Stored('l1_sender', 'l2_receiver'),
  columns: [col('l1_sender', 'string', 'Sender on L1.'), col('l2_receiver', 'string', 'Receiver on the L2.'), col('amount', 'double', 'wstETH amount.')],
  involving: ['l1_sender', 'l2_receiver'],
  aggregate: { source_column: 'amount', aggregation: 'sum', output_column: 'agg_minted_amount' },
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const stakingL2WithdrawalRequest = stakingEndpoint({
  event: 'l2_withdrawal_request',
  summary: 'wstETH withdrawals started on the L2 towards L1.',
  networks: STAKING_L2_NETWORKS,
  stored: l2Stored('l2_sender', 'l1_receiver'),
  columns: [col('l2_sender', 'string', 'Sender on the L2.'), col('l1_receiver', 'string', 'Receiver on L1.'), col('amount', 'double', 'wstETH amount.')],
  involving: ['l2_sender', 'l1_receiver'],
  aggregate: { source_column: 'amount', aggregation: 'sum', output_column: 'agg_burned_amount' },
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const stakingEndpoints = [stakingDeposit, stakingWithdrawalRequest, stakingWithdrawalClaimed, stakingL2Deposit, stakingL2WithdrawalRequest];
