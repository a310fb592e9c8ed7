import { CHAIN_FORMATS, addressFilterParams, amountParams, blockNumberColumn, col, stored, timeColumn, transferFilters } from '../common.ts';
import type { ChainEndpoint } from '../types.ts';

/**
 * Bitcoin "transfers" under chainq's UTXO rule: one row per output paid to an
 * address that does not also fund the transaction (change is not a transfer).
 * The sender is the funding input address holding the largest value; coinbase
 * outputs have no sender. tx id and vout are kept so every row can be traced.
 */
export const btcTransfer: ChainEndpoint = {
  id: 'btc/native/transfer',
  path: '/v1/btc/native/events/transfer',
  family: 'btc',
  protocol: 'native',
  event: 'transfer',
  eventName: 'transfer',
  summary:
    'Bitcoin transfers under the UTXO transfer rule: one row per output paid to an address that does not fund the transaction ' +
    '(change is left out); the sender is the funding address with the largest input value; coinbase outputs have no sender. ' +
    'See docs/venues-tron-btc.md#bitcoin-transfer-rule.',
  networks: ['BTC'],
  table: {
    name: 'btc_native_transfer',
    columns: [
      { name: 'network', type: 'string' },
      { name: 'block_number', type: 'int64' },
      { name: 'tx_index', type: 'int32' },
      { name: 'vout', type: 'int32' },
      { name: 'time', type: 'timestamp' },
      { name: 'tx_hash', type: 'string' },
      { name: 'token', type: 'string' },
      { name: 'sender', type: 'string' },
      { name: 'receiver', type: 'string' },
      { name: 'amount_raw', type: 'int64' },
      { name: 'amount', type: 'float64' },
    ],
    orderBy: ['network', 'block_number', 'tx_index', 'vout'],
  },
  params: { ...amountParams, ...addressFilterParams },
  filters: transferFilters(),
  columns: [
    blockNumberColumn,
    col('token', 'string', 'Always BTC.'),
    col('sender', 'string', 'Largest funding input address; null for coinbase.'),
    col('receiver', 'string', 'Receiving address.'),
    col('amount', 'double', 'Amount in BTC.'),
    timeColumn,
  ],
  verboseColumns: [col('tx_id', 'string', 'Transaction id.', stored('tx_hash')), col('vout', 'integer', 'Output index in the transaction.')],
  pricedAmount: { amount: 'amount', token: 'token' },
  aggregate: {
    columns: [{ source_column: 'amount', aggregation: 'sum', output_column: 'agg_amount' }],
    always_included: ['count'],
    group_columns: ['token'],
    valued: false,
  },
  formats: CHAIN_FORMATS,
  defaultFormat: 'json',
  cost: { kind: 'blocks' },
  served: true,
};
