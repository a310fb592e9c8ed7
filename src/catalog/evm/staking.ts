import { CHAIN_FORMATS, EVM_LOG_ORDER, blockNumberColumn, col, evmLogKey, evmVerboseColumns, involvingFilters, involvingParams, timeColumn } from '../common.ts';
import type { AggregateColumn, ChainEndpoint, OutputColumn, StoredColumn } from '../types.ts';

export const STAKING_L1_NETWORKS = ['ETH'] as const;
export const STAKING_L2_NETWORKS = ['ARB', 'SONEIUM', 'UNI', 'OP', 'ZK', 'ZIRCUIT', 'BASE', 'MANTLE', 'MODE'] as const;

interface StakingEvent {
  readonly event: string;
  readonly eventName: string;
  readonly summary: string;
  readonly networks: readonly string[];
  readonly stored: readonly StoredColumn[];
  readonly columns: readonly OutputColumn[];
  readonly involving: readonly string[];
  readonly aggregate: AggregateColumn;
  readonly pricedAmount: { amount: string; token: string };
}

const amount = (name: string): StoredColumn[] => [{ name: `${name}_raw`, type: 'uint256' }, { name, type: 'float64' }];

function stakingEndpoint(e: StakingEvent): ChainEndpoint {
  return {
    id: `evm/staking/${e.event}`,
    path: `/v1/evm/staking/events/${e.event}`,
    family: 'evm',
    protocol: 'staking',
    event: e.event,
    eventName: e.eventName,
    summary: e.summary,
    networks: e.networks,
    table: { name: `evm_staking_${e.event}`, columns: [...evmLogKey, { name: 'contract_address', type: 'string' }, ...e.stored], orderBy: EVM_LOG_ORDER },
    params: { ...involvingParams },
    filters: involvingFilters(e.involving),
    columns: [blockNumberColumn, ...e.columns, timeColumn],
    verboseColumns: evmVerboseColumns(e.eventName),
    pricedAmount: e.pricedAmount,
    aggregate: { columns: [e.aggregate], always_included: ['count'], valued: true },
    formats: CHAIN_FORMATS,
    defaultFormat: 'json',
    cost: { kind: 'blocks' },
    served: true,
  };
}

export const stakingDeposit = stakingEndpoint({
  event: 'deposit', eventName: 'Submitted', summary: 'ETH staked for stETH (Submitted events).', networks: STAKING_L1_NETWORKS,
  stored: [{ name: 'sender', type: 'string' }, { name: 'referral', type: 'string' }, ...amount('minted_amount'), { name: 'minted_token', type: 'string' }],
  columns: [col('sender', 'string', 'Staker.'), col('referral', 'string', 'Referral address.'), col('minted_amount', 'double', 'stETH minted (equal to the ETH submitted).'), col('minted_token', 'string', 'Minted token symbol.')],
  involving: ['sender'],
  aggregate: { source_column: 'minted_amount', aggregation: 'sum', output_column: 'agg_minted_amount' },
  pricedAmount: { amount: 'minted_amount', token: 'minted_token' },
});

export const stakingWithdrawalRequest = stakingEndpoint({
  event: 'withdrawal_request', eventName: 'WithdrawalRequested', summary: 'Withdrawal requests to the withdrawal queue.', networks: STAKING_L1_NETWORKS,
  stored: [{ name: 'request_id', type: 'uint64' }, { name: 'requestor', type: 'string' }, { name: 'owner', type: 'string' }, ...amount('burned_amount'), ...amount('burned_shares'), { name: 'burned_token', type: 'string' }],
  columns: [col('request_id', 'integer', 'Withdrawal request id.'), col('requestor', 'string', 'Address that requested.'), col('owner', 'string', 'Owner of the request.'), col('burned_amount', 'double', 'stETH locked for withdrawal.'), col('burned_token', 'string', 'Burned token symbol.')],
  involving: ['requestor', 'owner'],
  aggregate: { source_column: 'burned_amount', aggregation: 'sum', output_column: 'agg_burned_amount' },
  pricedAmount: { amount: 'burned_amount', token: 'burned_token' },
});

export const stakingWithdrawalClaimed = stakingEndpoint({
  event: 'withdrawal_claimed', eventName: 'WithdrawalClaimed', summary: 'Claimed withdrawals.', networks: STAKING_L1_NETWORKS,
  stored: [{ name: 'request_id', type: 'uint64' }, { name: 'receiver', type: 'string' }, { name: 'owner', type: 'string' }, ...amount('withdraw_amount'), { name: 'withdraw_token', type: 'string' }],
  columns: [col('request_id', 'integer', 'Withdrawal request id.'), col('receiver', 'string', 'Address that received ETH.'), col('owner', 'string', 'Owner of the request.'), col('withdraw_amount', 'double', 'ETH paid out.'), col('withdraw_token', 'string', 'Paid token symbol.')],
  involving: ['receiver', 'owner'],
  aggregate: { source_column: 'withdraw_amount', aggregation: 'sum', output_column: 'agg_withdraw_amount' },
  pricedAmount: { amount: 'withdraw_amount', token: 'withdraw_token' },
});

const l2Stored = (from: string, to: string): StoredColumn[] => [
  { name: 'l1_token', type: 'string' }, { name: 'l2_token', type: 'string' },
  { name: from, type: 'string' }, { name: to, type: 'string' }, ...amount('amount'), { name: 'token', type: 'string' },
];

export const stakingL2Deposit = stakingEndpoint({
  event: 'l2_deposit', eventName: 'DepositFinalized', summary: 'wstETH bridged from L1, finalized on the L2.', networks: STAKING_L2_NETWORKS,
  stored: l2Stored('l1_sender', 'l2_receiver'),
  columns: [col('l1_sender', 'string', 'Sender on L1.'), col('l2_receiver', 'string', 'Receiver on the L2.'), col('amount', 'double', 'wstETH amount.')],
  involving: ['l1_sender', 'l2_receiver'],
  aggregate: { source_column: 'amount', aggregation: 'sum', output_column: 'agg_minted_amount' },
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const stakingL2WithdrawalRequest = stakingEndpoint({
  event: 'l2_withdrawal_request', eventName: 'WithdrawalInitiated', summary: 'wstETH withdrawals started on the L2 towards L1.', networks: STAKING_L2_NETWORKS,
  stored: l2Stored('l2_sender', 'l1_receiver'),
  columns: [col('l2_sender', 'string', 'Sender on the L2.'), col('l1_receiver', 'string', 'Receiver on L1.'), col('amount', 'double', 'wstETH amount.')],
  involving: ['l2_sender', 'l1_receiver'],
  aggregate: { source_column: 'amount', aggregation: 'sum', output_column: 'agg_burned_amount' },
  pricedAmount: { amount: 'amount', token: 'token' },
});

export const stakingEndpoints = [stakingDeposit, stakingWithdrawalRequest, stakingWithdrawalClaimed, stakingL2Deposit, stakingL2WithdrawalRequest];
