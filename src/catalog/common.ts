/**
 * Shared building blocks of catalog entries: the parameters, limits, columns
 * and filters that most endpoints have in common, so that each protocol file
 * states only what differs.
 */
import { FORMAT_NAMES } from './formats.ts';
import type { ColumnExpr, FilterDef, Format, OutputColumn, Params, StoredColumn } from './types.ts';

export { SECONDS_PER_DAY } from './formats.ts';

/** EVM, Tron and Bitcoin endpoints answer every format (formats.ts). */
export const CHAIN_FORMATS: readonly Format[] = FORMAT_NAMES;

/** Parameters of every EVM, Tron and Bitcoin event endpoint. */
export function chainRangeParams(networks: readonly string[] | null): Params {
  return {
    ...(networks ? { network: { type: 'string', required: true, case: 'upper', enum: networks, description: 'Network code, case-insensitive.' } } : {}),
    block_start: { type: 'integer', minimum: 0, description: 'First block, inclusive. Give block_start with block_end, or since with until.' },
    block_end: { type: 'integer', minimum: 0, description: 'Last block, inclusive.' },
    since: { type: 'string', description: 'Start time, inclusive: Unix seconds, ISO 8601, or a bare date (midnight UTC).' },
    until: { type: 'string', description: 'End time, exclusive: Unix seconds, ISO 8601, or a bare date (midnight UTC).' },
    format: { type: 'string', case: 'lower', enum: CHAIN_FORMATS, default: 'json', description: 'Output format.' },
    verbose: { type: 'boolean', default: false, description: 'Append network, tx_id, log_index and name to every row.' },
    with_time: { type: 'boolean', default: true, description: 'Include the time column. false leaves it out.' },
  };
}

export const addressFilterParams: Params = {
  sender: { type: 'string', list: true, description: 'Sender address.' },
  receiver: { type: 'string', list: true, description: 'Receiver address.' },
  involving: { type: 'string', list: true, exclusiveWith: ['sender', 'receiver'], description: 'Address as sender or receiver.' },
  involving_label: { type: 'string', list: true, exclusiveWith: ['involving', 'sender', 'receiver'], description: 'Case-insensitive label substring of the sender or receiver.' },
  involving_category: { type: 'string', list: true, exclusiveWith: ['involving', 'sender', 'receiver'], description: 'Address category of the sender or receiver, e.g. exchange.' },
  sender_label: { type: 'string', list: true, exclusiveWith: ['sender', 'sender_category', 'involving'], description: 'Case-insensitive label substring of the sender.' },
  sender_category: { type: 'string', list: true, exclusiveWith: ['sender', 'sender_label', 'involving'], description: 'Address category of the sender.' },
  receiver_label: { type: 'string', list: true, exclusiveWith: ['receiver', 'receiver_category', 'involving'], description: 'Case-insensitive label substring of the receiver.' },
  receiver_category: { type: 'string', list: true, exclusiveWith: ['receiver', 'receiver_label', 'involving'], description: 'Address category of the receiver.' },
};

/**
 * The token of the ERC-20 and TRC-20 transfer endpoints: one, or several
 * comma-separated (chainq's extension, docs/api.md), with the switch that
 * drops unknown ones instead of refusing the request.
 */
export function tokenListParams(one: string): Params {
  return {
    token: {
      type: 'string',
      required: true,
      list: true,
      description: `${one} Several, comma-separated (e.g. USDT,USDC), select all of them in one query; each row's token tells them apart.`,
    },
    ignore_unknown_tokens: {
      type: 'boolean',
      default: false,
      description: 'Drop tokens the registry does not know instead of answering 400 unknown_token; the X-Chainq-Dropped-Tokens response header names them. At least one token must be known.',
    },
  };
}

export const amountParams: Params = {
  min_amount: { type: 'number', minimum: 0, description: 'Minimum amount in token units, inclusive.' },
  max_amount: { type: 'number', minimum: 0, description: 'Maximum amount in token units, inclusive; 0 means no limit.' },
};

/** Filters of a sender/receiver transfer dataset. */
export function transferFilters(amountColumn = 'amount'): Record<string, FilterDef> {
  return {
    sender: { kind: 'address', columns: ['sender'] },
    receiver: { kind: 'address', columns: ['receiver'] },
    involving: { kind: 'address', columns: ['sender', 'receiver'] },
    involving_label: { kind: 'label', columns: ['sender', 'receiver'] },
    involving_category: { kind: 'category', columns: ['sender', 'receiver'] },
    sender_label: { kind: 'label', columns: ['sender'] },
    sender_category: { kind: 'category', columns: ['sender'] },
    receiver_label: { kind: 'label', columns: ['receiver'] },
    receiver_category: { kind: 'category', columns: ['receiver'] },
    min_amount: { kind: 'min_amount', column: amountColumn },
    max_amount: { kind: 'max_amount', column: amountColumn },
  };
}

export const involvingParams: Params = {
  involving: { type: 'string', list: true, description: 'Address involved in the event in any role.' },
  involving_label: { type: 'string', list: true, exclusiveWith: ['involving'], description: 'Case-insensitive label substring of an involved address.' },
  involving_category: { type: 'string', list: true, exclusiveWith: ['involving'], description: 'Address category of an involved address.' },
};

export function involvingFilters(columns: readonly string[]): Record<string, FilterDef> {
  return {
    involving: { kind: 'address', columns },
    involving_label: { kind: 'label', columns },
    involving_category: { kind: 'category', columns },
  };
}

/** Columns every stored EVM log event carries, whether or not rows show them. */
export const evmLogKey: readonly StoredColumn[] = [
  { name: 'network', type: 'string' },
  { name: 'block_number', type: 'int64' },
  { name: 'log_index', type: 'int32' },
  { name: 'time', type: 'timestamp' },
  { name: 'tx_hash', type: 'string' },
];

export const EVM_LOG_ORDER = ['network', 'block_number', 'log_index'] as const;

/** The id, path and table of a built-in EVM protocol's event dataset: the one place their shapes are spelled. */
export function evmDatasetNames(protocol: string, event: string): { id: string; path: string; tableName: string } {
  return { id: `evm/${protocol}/${event}`, path: `/v1/evm/${protocol}/events/${event}`, tableName: `evm_${protocol}_${event}` };
}

/** An ISO 8601 UTC time column rendered from a stored TIMESTAMP. */
export const timeColumn: OutputColumn = {
  name: 'time',
  type: 'string',
  expr: { kind: 'iso_time', arg: { kind: 'column', name: 'time' }, millis: false },
  description: 'Block time, ISO 8601 UTC.',
};

export const blockNumberColumn: OutputColumn = { name: 'block_number', type: 'integer', description: 'Block number.' };

/** A stored column of the dataset's table, in an output column's expression. */
export const stored = (name: string): ColumnExpr => ({ kind: 'column', name });

/** A text constant of the catalog. */
export const text = (value: string): ColumnExpr => ({ kind: 'literal', value, type: 'string' });

export function evmVerboseColumns(eventName: string): readonly OutputColumn[] {
  return [
    { name: 'network', type: 'string', description: 'Network code.' },
    { name: 'tx_id', type: 'string', expr: stored('tx_hash'), description: 'Transaction hash.' },
    { name: 'log_index', type: 'integer', description: 'Index of the log in its block.' },
    { name: 'name', type: 'string', expr: text(eventName), description: 'Event name as emitted on chain.' },
  ];
}

/** Shorthand for a column shown as stored, or computed by `expr`. */
export const col = (name: string, type: OutputColumn['type'], description: string, expr?: ColumnExpr): OutputColumn =>
  expr === undefined ? { name, type, description } : { name, type, description, expr };
