import { CHAIN_FORMATS, addressFilterParams, amountParams, blockNumberColumn, col, stored, timeColumn, tokenListParams, transferFilters } from '../common.ts';
import type { ChainEndpoint, OutputColumn } from '../types.ts';

const tronVerbose: readonly OutputColumn[] = [col('tx_id', 'string', 'Transaction id.', stored('tx_hash'))];

/** Aggregates of Tron and Bitcoin: one row per bucket and token (docs/aggregates.md, "Tron and Bitcoin"). */
const perTokenSum = {
  columns: [{ source_column: 'amount', aggregation: 'sum', output_column: 'agg_amount' }],
  always_included: ['count'],
  group_columns: ['token'],
  valued: false,
} as const;

/** What both Tron transfer endpoints share. */
const tronTransfer = {
  family: 'tron',
  event: 'transfer',
  networks: ['TRON'],
  verboseColumns: tronVerbose,
  pricedAmount: { amount: 'amount', token: 'token' },
  aggregate: perTokenSum,
  formats: CHAIN_FORMATS,
  defaultFormat: 'json',
  cost: { kind: 'blocks' },
  served: true,
} as const;

export const tronTrc20Transfer: ChainEndpoint = {
  ...tronTransfer,
  id: 'tron/trc20/transfer',
  path: '/v1/tron/trc20/events/transfer',
  protocol: 'trc20',
  eventName: 'Transfer',
  summary: 'TRC-20 Transfer events of one token, or of several, on Tron.',
  table: {
    name: 'tron_trc20_transfer',
    columns: [
      { name: 'network', type: 'string' },
      { name: 'block_number', type: 'int64' },
      { name: 'log_index', type: 'int32' },
      { name: 'time', type: 'timestamp' },
      { name: 'tx_hash', type: 'string' },
      { name: 'token_address', type: 'string' },
      { name: 'token', type: 'string' },
      { name: 'token_decimals', type: 'uint8' },
      { name: 'sender', type: 'string' },
      { name: 'receiver', type: 'string' },
      { name: 'amount_raw', type: 'uint256' },
      { name: 'amount', type: 'float64' },
    ],
    orderBy: ['network', 'block_number', 'log_index'],
  },
  params: {
    ...tokenListParams('Token symbol (case-insensitive) or base58 T… contract address.'),
    ...amountParams,
    ...addressFilterParams,
  },
  filters: { token: { kind: 'token' }, ...transferFilters() },
  columns: [
    blockNumberColumn,
    col('token', 'string', 'Token symbol.'),
    col('sender', 'string', 'Sender, base58.'),
    col('receiver', 'string', 'Receiver, base58.'),
    col('amount', 'double', 'Amount in token units.'),
    timeColumn,
  ],
};

export const tronNativeTransfer: ChainEndpoint = {
  ...tronTransfer,
  id: 'tron/native/transfer',
  path: '/v1/tron/native/events/transfer',
  protocol: 'native',
  eventName: 'TransferContract',
  summary: 'TRX transfers (TransferContract) on Tron.',
  table: {
    name: 'tron_native_transfer',
    columns: [
      { name: 'network', type: 'string' },
      { name: 'block_number', type: 'int64' },
      { name: 'tx_index', type: 'int32' },
      { name: 'time', type: 'timestamp' },
      { name: 'tx_hash', type: 'string' },
      { name: 'token', type: 'string' },
      { name: 'sender', type: 'string' },
      { name: 'receiver', type: 'string' },
      { name: 'amount_raw', type: 'int64' },
      { name: 'amount', type: 'float64' },
    ],
    orderBy: ['network', 'block_number', 'tx_index'],
  },
  params: { ...amountParams, ...addressFilterParams },
  filters: transferFilters(),
  columns: [
    blockNumberColumn,
    col('token', 'string', 'Always TRX.'),
    col('sender', 'string', 'Sender, base58.'),
    col('receiver', 'string', 'Receiver, base58.'),
    col('amount', 'double', 'Amount in TRX.'),
    timeColumn,
  ],
};
