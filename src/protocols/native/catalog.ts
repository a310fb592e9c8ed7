import { CHAIN_FORMATS, addressFilterParams, evmDatasetNames, amountParams, blockNumberColumn, col, stored, text, timeColumn, transferFilters } from '../../catalog/common.ts';
import type { ChainEndpoint } from '../../catalog/types.ts';

const names = evmDatasetNames('native', 'transfer');

export const NATIVE_NETWORKS = ['ETH', 'POLYGON', 'BASE', 'OP', 'ARB'] as const;

/**
 * Value moved by transactions and by internal calls. A row is a top-level
 * transaction with value > 0 (trace_index 0) or a successful internal call
 * frame with value > 0 (trace_index ≥ 1, depth-first order).
 */
export const nativeTransfer: ChainEndpoint = {
  id: names.id,
  path: names.path,
  family: 'evm',
  protocol: 'native',
  event: 'transfer',
  eventName: 'transfer',
  summary: 'Native-currency transfers: transaction values and internal calls carrying value.',
  networks: NATIVE_NETWORKS,
  table: {
    name: names.tableName,
    columns: [
      { name: 'network', type: 'string' },
      { name: 'block_number', type: 'int64' },
      { name: 'tx_index', type: 'int32' },
      { name: 'trace_index', type: 'int32' },
      { name: 'time', type: 'timestamp' },
      { name: 'tx_hash', type: 'string' },
      { name: 'token', type: 'string' },
      { name: 'sender', type: 'string' },
      { name: 'receiver', type: 'string' },
      { name: 'amount_raw', type: 'uint256' },
      { name: 'amount', type: 'float64' },
    ],
    orderBy: ['network', 'block_number', 'tx_index', 'trace_index'],
  },
  params: { ...amountParams, ...addressFilterParams },
  filters: transferFilters(),
  columns: [
    blockNumberColumn,
    col('token', 'string', 'Native currency symbol.'),
    col('sender', 'string', 'Sender address.'),
    col('receiver', 'string', 'Receiver address.'),
    col('amount', 'double', 'Amount in native units.'),
    timeColumn,
  ],
  verboseColumns: [
    col('network', 'string', 'Network code.'),
    col('tx_id', 'string', 'Transaction hash.', stored('tx_hash')),
    col('log_index', 'integer', 'Always null: native transfers are not logs. Rows are ordered by transaction index, then trace position.', { kind: 'literal', value: null, type: 'integer' }),
    col('name', 'string', "'transfer' for a transaction's own value, 'internal_transfer' for a call inside it.", {
      kind: 'if',
      left: stored('trace_index'),
      op: '=',
      right: { kind: 'literal', value: 0, type: 'integer' },
      then: text('transfer'),
      else: text('internal_transfer'),
    }),
  ],
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
