import { parseAbiItem } from 'abitype';
import {
  CHAIN_FORMATS,
  EVM_LOG_ORDER,
  addressFilterParams,
  amountParams,
  blockNumberColumn,
  col,
  evmDatasetNames,
  evmLogKey,
  evmVerboseColumns,
  timeColumn,
  tokenListParams,
  transferFilters,
} from '../../catalog/common.ts';
import type { ChainEndpoint } from '../../catalog/types.ts';

/** The ABI events the protocol's datasets decode, by dataset event. */
export const ERC20_ABI = {
  transfer: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
} as const;

const names = evmDatasetNames('erc20', 'transfer');

export const ERC20_NETWORKS = ['ETH', 'POLYGON', 'ARB', 'OP', 'BASE', 'BSC', 'AVAX'] as const;

export const erc20Transfer: ChainEndpoint = {
  id: names.id,
  path: names.path,
  family: 'evm',
  protocol: 'erc20',
  event: 'transfer',
  eventName: ERC20_ABI.transfer.name,
  abi: ERC20_ABI.transfer,
  summary: 'ERC-20 Transfer events of one token, or of several.',
  networks: ERC20_NETWORKS,
  table: {
    name: names.tableName,
    columns: [
      ...evmLogKey,
      { name: 'token_address', type: 'string' },
      { name: 'token', type: 'string' },
      { name: 'token_decimals', type: 'uint8' },
      { name: 'sender', type: 'string' },
      { name: 'receiver', type: 'string' },
      { name: 'amount_raw', type: 'uint256' },
      { name: 'amount', type: 'float64' },
    ],
    orderBy: EVM_LOG_ORDER,
  },
  params: {
    ...tokenListParams('Token symbol or alias (case-insensitive), or contract address.'),
    decimals: { type: 'integer', minimum: 0, description: 'Token decimals when a single contract address is given; default: the registry value, else 18.' },
    ...amountParams,
    ...addressFilterParams,
  },
  filters: { token: { kind: 'token' }, decimals: { kind: 'decimals' }, ...transferFilters() },
  columns: [
    blockNumberColumn,
    col('token', 'string', 'Token symbol.'),
    col('sender', 'string', 'Sender address.'),
    col('receiver', 'string', 'Receiver address.'),
    col('amount', 'double', 'Amount in token units.'),
    timeColumn,
  ],
  verboseColumns: evmVerboseColumns(ERC20_ABI.transfer.name),
  pricedAmount: { amount: 'amount', token: 'token' },
  aggregate: {
    columns: [{ source_column: 'amount', aggregation: 'sum', output_column: 'agg_amount' }],
    always_included: ['count'],
    valued: false,
  },
  formats: CHAIN_FORMATS,
  defaultFormat: 'json',
  cost: { kind: 'blocks' },
  served: true,
};
