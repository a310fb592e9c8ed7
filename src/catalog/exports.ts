/**
 * Export jobs (docs/api.md, "Exports"): their paths, the body POST takes and
 * the objects they answer. The routes (src/server/routes/exports.ts) check
 * the body themselves, to answer each mistake with its own message; OpenAPI
 * documents them from here.
 */

export const EXPORTS_PATH = '/v1/exports';

export const EXPORT_SUMMARIES = {
  create:
    "Starts an export job: any data endpoint's rows over any stored range, written as one file per partition. The whole price is checked against the budget and max_cost now; each partition is charged its share when its file is complete.",
  list: "The calling key's exports, newest first.",
  get: 'One export: its status, progress, cost and what has been charged so far.',
  cancel: 'Cancels a queued or running export (finished partitions stay charged and downloadable), or deletes the files of a finished one.',
  manifest: "A finished export's manifest: columns, and each file's range, rows, bytes, SHA-256 and block hashes.",
  file: 'One file of an export, with Repr-Digest and Range support; the key that made the export is needed.',
} as const;

export const EXPORT_BODY = {
  type: 'object',
  required: ['endpoint'],
  properties: {
    endpoint: { type: 'string', description: 'Path of a data endpoint, as listed by /v1/protocols and the OpenAPI document (e.g. /v1/btc/native/events/transfer).' },
    params: { type: 'object', description: "The endpoint's own query parameters (not format, link or max_cost), validated as the endpoint validates them." },
    format: { enum: ['parquet', 'csv'], default: 'parquet' },
    compression: { enum: ['gzip'], description: 'csv only.' },
    partition_blocks: { type: 'integer', minimum: 1, default: 100_000, description: 'Blocks per file, for a block range.' },
    partition_days: { type: 'integer', minimum: 1, default: 1, description: 'Days per file, for a time range (venues).' },
    max_cost: { type: 'number', minimum: 0, description: 'Refuse the export (400 cost_over_limit) if it costs more blocks.' },
  },
} as const;

export const EXPORT_ACCEPTED = {
  type: 'object',
  required: ['id', 'status', 'cost', 'partitions'],
  properties: { id: { type: 'string' }, status: { const: 'queued' }, cost: { type: 'integer' }, partitions: { type: 'integer' } },
} as const;

const nullable = (type: string) => ({ type: [type, 'null'] });

export const EXPORT_OBJECT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { enum: ['queued', 'running', 'done', 'failed', 'cancelled'] },
    endpoint: { type: 'string' },
    params: { type: 'object' },
    format: { enum: ['parquet', 'csv'] },
    compression: { enum: ['gzip', null] },
    partitions: { type: 'integer' },
    partitions_done: { type: 'integer' },
    rows: { type: 'integer' },
    bytes: { type: 'integer' },
    cost: { type: 'integer', description: 'Blocks the whole export costs.' },
    charged: { type: 'integer', description: 'Blocks charged so far: the shares of the finished partitions.' },
    eta_seconds: nullable('integer'),
    created_at: { type: 'string' },
    finished_at: nullable('string'),
    expires_at: nullable('string'),
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, error: { type: 'string' } } },
  },
} as const;

export const EXPORT_MANIFEST = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    endpoint: { type: 'string' },
    params: { type: 'object' },
    format: { enum: ['parquet', 'csv'] },
    compression: { enum: ['gzip', null] },
    columns: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string' } } } },
    files: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'part-<start>-<end>.<ext>; venues part-YYYYMMDD-YYYYMMDD.<ext>.' },
          block_start: { type: 'integer' },
          block_end: { type: 'integer' },
          time_start: { type: 'string' },
          time_end: { type: 'string' },
          rows: { type: 'integer' },
          bytes: { type: 'integer' },
          sha256: { type: 'string' },
          first_block_hash: nullable('string'),
          last_block_hash: nullable('string'),
          url: { type: 'string', description: 'The object, when files are delivered to a bucket.' },
        },
      },
    },
    totals: { type: 'object', properties: { files: { type: 'integer' }, rows: { type: 'integer' }, bytes: { type: 'integer' } } },
  },
} as const;
