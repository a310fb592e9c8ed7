/**
 * Export jobs and partitions as both engines store them: the same columns
 * (times as epoch milliseconds), read back into the contract's typed values.
 */
import type { ExportStatus, StoredExport, StoredExportPart } from './types.ts';

const STATUSES: readonly ExportStatus[] = ['queued', 'running', 'done', 'failed', 'cancelled'];

/** A row of `export_jobs` as an engine answers it (64-bit integers as bigint or number). */
export interface ExportJobRow {
  id: string;
  key_id: string;
  status: string;
  endpoint: string;
  params: string;
  format: string;
  compression: string | null;
  partition_by: string;
  range_start: bigint | number;
  range_end: bigint | number;
  partition_size: bigint | number;
  partitions: number;
  cost: bigint | number;
  columns: string;
  created_ms: bigint | number;
  finished_ms: bigint | number | null;
  expires_ms: bigint | number | null;
  error_code: string | null;
  error_message: string | null;
  files_removed: boolean | number;
}

export interface ExportPartRow {
  export_id: string;
  idx: number;
  name: string;
  range_start: bigint | number;
  range_end: bigint | number;
  rows: bigint | number;
  bytes: bigint | number;
  sha256: string;
  first_block_hash: string | null;
  last_block_hash: string | null;
  charge: bigint | number;
  url: string | null;
}

const msDate = (v: bigint | number | null): Date | null => (v === null ? null : new Date(Number(v)));

export function toStoredExport(r: ExportJobRow): StoredExport {
  const status = STATUSES.find((s) => s === r.status);
  if (!status) throw new Error(`export ${r.id} has an unknown status '${r.status}'`);
  return {
    id: r.id,
    keyId: r.key_id,
    status,
    endpoint: r.endpoint,
    params: r.params,
    format: r.format === 'csv' ? 'csv' : 'parquet',
    compression: r.compression === 'gzip' ? 'gzip' : null,
    partitionBy: r.partition_by === 'time' ? 'time' : 'blocks',
    rangeStart: Number(r.range_start),
    rangeEnd: Number(r.range_end),
    partitionSize: Number(r.partition_size),
    partitions: Number(r.partitions),
    cost: Number(r.cost),
    columns: r.columns,
    createdAt: new Date(Number(r.created_ms)),
    finishedAt: msDate(r.finished_ms),
    expiresAt: msDate(r.expires_ms),
    errorCode: r.error_code,
    errorMessage: r.error_message,
    filesRemoved: Boolean(r.files_removed),
  };
}

/** The columns of `export_jobs`, in table order, for `job`. */
export function exportJobValues(job: StoredExport): ExportJobRow {
  return {
    id: job.id,
    key_id: job.keyId,
    status: job.status,
    endpoint: job.endpoint,
    params: job.params,
    format: job.format,
    compression: job.compression,
    partition_by: job.partitionBy,
    range_start: job.rangeStart,
    range_end: job.rangeEnd,
    partition_size: job.partitionSize,
    partitions: job.partitions,
    cost: job.cost,
    columns: job.columns,
    created_ms: job.createdAt.getTime(),
    finished_ms: job.finishedAt?.getTime() ?? null,
    expires_ms: job.expiresAt?.getTime() ?? null,
    error_code: job.errorCode,
    error_message: job.errorMessage,
    files_removed: job.filesRemoved,
  };
}

export function toStoredPart(r: ExportPartRow): StoredExportPart {
  return {
    exportId: r.export_id,
    index: Number(r.idx),
    name: r.name,
    rangeStart: Number(r.range_start),
    rangeEnd: Number(r.range_end),
    rows: Number(r.rows),
    bytes: Number(r.bytes),
    sha256: r.sha256,
    firstBlockHash: r.first_block_hash,
    lastBlockHash: r.last_block_hash,
    charge: Number(r.charge),
    url: r.url,
  };
}

export function exportPartValues(p: StoredExportPart): ExportPartRow {
  return {
    export_id: p.exportId,
    idx: p.index,
    name: p.name,
    range_start: p.rangeStart,
    range_end: p.rangeEnd,
    rows: p.rows,
    bytes: p.bytes,
    sha256: p.sha256,
    first_block_hash: p.firstBlockHash,
    last_block_hash: p.lastBlockHash,
    charge: p.charge,
    url: p.url,
  };
}
