/** The sample protocol's one dataset: the test Vault's Deposited events (test/contracts/Vault.sol). */
import { parseAbiItem } from 'abitype';
import { blockNumberColumn, CHAIN_FORMATS, col, EVM_LOG_ORDER, evmDatasetNames, evmLogKey, evmVerboseColumns, involvingFilters, involvingParams, timeColumn } from '../../../src/catalog/common.ts';
import type { ChainEndpoint } from '../../../src/catalog/types.ts';

export const SAMPLE_ABI = {
  deposit: parseAbiItem('event Deposited(address indexed who, uint256 amount, int64 delta, bool flag, bytes32 tag)'),
} as const;

const names = evmDatasetNames('sample', 'deposit');

export const sampleDeposit: ChainEndpoint = {
  id: names.id,
  path: names.path,
  family: 'evm',
  protocol: 'sample',
  event: 'deposit',
  eventName: SAMPLE_ABI.deposit.name,
  abi: SAMPLE_ABI.deposit,
  summary: 'Deposits into the configured vaults (a protocol defined by the tests only).',
  networks: ['ETH'],
  table: {
    name: names.tableName,
    columns: [...evmLogKey, { name: 'vault', type: 'string' }, { name: 'who', type: 'string' }, { name: 'amount_raw', type: 'uint256' }, { name: 'amount', type: 'float64' }],
    orderBy: EVM_LOG_ORDER,
  },
  params: { ...involvingParams },
  filters: involvingFilters(['who']),
  columns: [blockNumberColumn, col('vault', 'string', 'Vault address.'), col('who', 'string', 'Depositor.'), col('amount', 'double', 'Amount, 18 decimals.'), timeColumn],
  verboseColumns: evmVerboseColumns(SAMPLE_ABI.deposit.name),
  formats: CHAIN_FORMATS,
  defaultFormat: 'json',
  cost: { kind: 'blocks' },
  served: true,
};
